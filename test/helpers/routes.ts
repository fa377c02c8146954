// Every route of the API by a name a test can read, for callRoute (typed params and answers).
import getDisplaySettings from "../../src/display/routes/get";
import setDisplaySettings from "../../src/display/routes/put";
import decideOnOperation from "../../src/approvals/routes/decide";
import getApprovalSettings from "../../src/approvals/routes/get-settings";
import listApprovalDecisions from "../../src/approvals/routes/list";
import setApprovalSettings from "../../src/approvals/routes/put-settings";
import { attachPost, attachPut } from "../../src/attachments/routes/attach";
import detachAccounts from "../../src/attachments/routes/detach";
import listAttachments from "../../src/attachments/routes/list";
import createCart from "../../src/checkout/routes/create-cart";
import createOrder from "../../src/checkout/routes/create-order";
import cancelOrder from "../../src/checkout/routes/cancel-order";
import getOperationTotals from "../../src/totals/routes/totals";
import listAccountTotals from "../../src/totals/routes/accounts";
import getDailyTotals from "../../src/totals/routes/daily";
import setAllocations from "../../src/allocation/routes/put-lines";
import setAccountCaps from "../../src/allocation/routes/put-accounts";
import listAccountCaps from "../../src/allocation/routes/list-accounts";
import planAllocation from "../../src/allocation/routes/plan";
import issueLiveTicket from "../../src/live/routes/ticket";
import getCart from "../../src/checkout/routes/get-cart";
import getOrder from "../../src/checkout/routes/get-order";
import listOrders from "../../src/checkout/routes/list-orders";
import compare from "../../src/compare/routes/compare";
import listDirectory from "../../src/directory/routes/list";
import putDirectory from "../../src/directory/routes/put";
import listEvents from "../../src/events/routes/list";
import listHistory from "../../src/history/routes/list";
import listOperationHistory from "../../src/history/routes/operation-history";
import getOperationVersion from "../../src/history/routes/version";
import diffOperationVersions from "../../src/history/routes/diff";
import getHistorySettings from "../../src/history/archive/routes/get-settings";
import putHistorySettings from "../../src/history/archive/routes/put-settings";
import revertOperation from "../../src/revert/routes/revert";
import createKey from "../../src/keys/routes/create";
import getKey from "../../src/keys/routes/get";
import listKeys from "../../src/keys/routes/list";
import revokeKey from "../../src/keys/routes/revoke";
import getFrontOperation from "../../src/front/routes/get";
import listFrontLines from "../../src/front/routes/lines";
import listFrontOperations from "../../src/front/routes/list";
import deleteLines from "../../src/lines/routes/delete";
import listLines from "../../src/lines/routes/list";
import putLines from "../../src/lines/routes/put";
import createOperation from "../../src/operations/routes/create";
import deleteOperation from "../../src/operations/routes/delete";
import getOperation from "../../src/operations/routes/get";
import listOperations from "../../src/operations/routes/list";
import patchOperation from "../../src/operations/routes/patch";
import changeStatus from "../../src/operations/routes/status";
import createRule from "../../src/quotas/routes/create";
import deleteRules from "../../src/quotas/routes/delete-many";
import upsertRules from "../../src/quotas/routes/put-many";
import deleteRule from "../../src/quotas/routes/delete";
import restoreRule from "../../src/quotas/routes/restore";
import evaluateQuotas from "../../src/quotas/routes/evaluate";
import getRule from "../../src/quotas/routes/get";
import getQuotaDefault from "../../src/quotas/routes/get-default";
import assessQuotaImpact from "../../src/quotas/routes/impact";
import listRules from "../../src/quotas/routes/list";
import putQuotaDefault from "../../src/quotas/routes/put-default";
import updateRule from "../../src/quotas/routes/update";
import createWebhook from "../../src/webhooks/routes/create";
import deleteWebhook from "../../src/webhooks/routes/delete";
import listDeliveries from "../../src/webhooks/routes/deliveries";
import getWebhook from "../../src/webhooks/routes/get";
import listWebhooks from "../../src/webhooks/routes/list";
import redeliverDelivery from "../../src/webhooks/routes/redeliver";
import updateWebhook from "../../src/webhooks/routes/update";
import abortTenantMove from "../../src/tenants/routes/abort";
import getTenantMove from "../../src/tenants/routes/get";
import reverseTenantMove from "../../src/tenants/routes/reverse";
import startTenantMove from "../../src/tenants/routes/start";

export const routes = {
  listOperations,
  createOperation,
  getOperation,
  patchOperation,
  changeStatus,
  deleteOperation,
  listLines,
  putLines,
  deleteLines,
  listDirectory,
  putDirectory,
  listAttachments,
  attachAccounts: attachPut,
  attachAccountsByPost: attachPost,
  detachAccounts,
  listRules,
  createRule,
  getRule,
  updateRule,
  deleteRule,
  restoreRule,
  upsertRules,
  deleteRules,
  getQuotaDefault,
  putQuotaDefault,
  evaluateQuotas,
  assessQuotaImpact,
  createCart,
  getCart,
  createOrder,
  cancelOrder,
  getOperationTotals,
  listAccountTotals,
  getDailyTotals,
  setAllocations,
  setAccountCaps,
  listAccountCaps,
  planAllocation,
  issueLiveTicket,
  getOrder,
  listOrders,
  compare,
  listFrontOperations,
  getFrontOperation,
  listFrontLines,
  listEvents,
  listHistory,
  listOperationHistory,
  getOperationVersion,
  diffOperationVersions,
  revertOperation,
  getHistorySettings,
  putHistorySettings,
  getApprovalSettings,
  getDisplaySettings,
  setDisplaySettings,
  setApprovalSettings,
  listApprovalDecisions,
  decideOnOperation,
  listKeys,
  createKey,
  getKey,
  revokeKey,
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  listDeliveries,
  redeliverDelivery,
  startTenantMove,
  getTenantMove,
  abortTenantMove,
  reverseTenantMove,
};
