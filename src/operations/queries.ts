import { and, eq, gte, inArray, lte, or, sql, type SQL } from "drizzle-orm";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { inJsonList } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import { containsText, listPage, selectRows, type ListContext, type ListDefinition, type PageRequest, type RunPageOptions } from "../platform/data/pagination";
import { accountUsers } from "../directory/tables";
import { operationAccounts, operationOwners, operations } from "./tables";
import { type ListOperationsQuery, operationList, type OperationRepresentation } from "./schemas";

import type { OperationRow } from "./aggregate";

export type { OperationRow };

export function toOperationRepresentation(row: OperationRow): OperationRepresentation {
  return {
    id: row.id,
    code: row.code,
    externalId: row.externalId,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    startDate: row.startDate,
    endDate: row.endDate,
    schedule: row.activateAt === null && row.deactivateAt === null ? null : { activateAt: row.activateAt, deactivateAt: row.deactivateAt },
    ownerIds: row.ownerIds,
    lineCount: row.lineCount,
    accountCount: row.accountCount,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * What an ACCOUNT key may read: PUBLIC Operations, and PRIVATE ones attached to an account
 * whose users include the key's user. OPERATOR keys see the whole tenant.
 */
export function visibleTo(principal: Principal): SQL | undefined {
  if (principal.role === "OPERATOR") return undefined;
  return or(
    eq(operations.type, "PUBLIC"),
    inArray(
      operations.id,
      sql`(select ${operationAccounts.operationId} from ${accountUsers} join ${operationAccounts}
            on ${operationAccounts.tenantId} = ${accountUsers.tenantId} and ${operationAccounts.accountId} = ${accountUsers.accountId}
            where ${accountUsers.tenantId} = ${principal.tenantId} and ${accountUsers.userId} = ${principal.userId})`,
    ),
  );
}

/**
 * A constant condition for queries over an Operation's rows (lines, attachments): the Operation is
 * in the caller's tenant and visible to it. Lets a list check visibility in its own query.
 */
export function operationVisibleTo(principal: Principal, operationId: string): SQL {
  return sql`exists (select 1 from ${operations} where ${and(
    eq(operations.id, operationId),
    eq(operations.tenantId, principal.tenantId),
    visibleTo(principal),
  )})`;
}

/** The Operation if the principal may see it; 404 otherwise (never 403: existence is not revealed). */
export async function getVisibleOperation(db: Db, principal: Principal, operationId: string): Promise<OperationRow> {
  const [row] = await db
    .select()
    .from(operations)
    .where(and(eq(operations.tenantId, principal.tenantId), eq(operations.id, operationId), visibleTo(principal)))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Operation ${operationId} not found.`);
  return row;
}

/** The lower-cased name in one locale ('' without one); the tag is validated, and matched ignoring case. */
function nameInLocale(locale: string): SQL {
  return sql`coalesce(json_extract(${operations.nameFolded}, ${`$."${locale.toLowerCase()}"`}), '')`;
}

function operationFilters(principal: Principal, query: ListOperationsQuery): (SQL | undefined)[] {
  const ids = query.ids ?? query.operationId;
  const name = query.name ?? query.operationName;
  const idColumn = { id: operations.id, code: operations.code, externalId: operations.externalId }[query.idType];
  const nameColumn = query.locale ? nameInLocale(query.locale) : operations.nameSearch;
  return [
    eq(operations.tenantId, principal.tenantId),
    visibleTo(principal),
    query.status && inJsonList(operations.status, query.status),
    ids && inJsonList(idColumn, ids),
    containsText(nameColumn, name),
    query.type && eq(operations.type, query.type),
    query.startDateFrom ? gte(operations.startDate, query.startDateFrom) : undefined,
    query.startDateTo ? lte(operations.startDate, query.startDateTo) : undefined,
    query.endDateFrom ? gte(operations.endDate, query.endDateFrom) : undefined,
    query.endDateTo ? lte(operations.endDate, query.endDateTo) : undefined,
    query.ownerIds &&
      inArray(
        operations.id,
        sql`(select ${operationOwners.operationId} from ${operationOwners}
              where ${operationOwners.tenantId} = ${principal.tenantId} and ${inJsonList(operationOwners.userId, query.ownerIds)})`,
      ),
  ];
}

/**
 * `narrowing` lets another view of the Operations (the front list) reuse this list with filters of its
 * own: `name` keeps its tokens apart, `filters` are ANDed with the query's (and are not part of the
 * token binding, so a time-based filter such as "open now" does not invalidate the next page).
 */
export async function listOperations(
  { db, secret, principal }: ListContext,
  query: ListOperationsQuery,
  narrowing: { name?: string; filters?: (SQL | undefined)[] } = {},
) {
  const definition: ListDefinition = query.locale
    ? {
        ...operationList,
        sortable: { ...operationList.sortable, name: nameInLocale(query.locale) },
      }
    : operationList;
  return listPage({
    definition,
    secret,
    scope: { tenant: principal.tenantId, user: principal.userId, ...(narrowing.name && { view: narrowing.name }) },
    query,
    filters: [...operationFilters(principal, query), ...(narrowing.filters ?? [])],
    run: selectRows(db, operations),
  });
}

/**
 * One page of rows that belong to an Operation (lines, attachments, orders). The visibility check
 * rides inside the page query; only an empty page costs a second query, to tell "none match" from
 * "no such Operation" (404).
 */
export async function listOperationRows<Row extends Record<string, unknown>>(
  { db, secret, principal }: ListContext,
  operationId: string,
  list: { definition: ListDefinition; query: PageRequest; filters: (SQL | undefined)[]; run: (options: RunPageOptions) => Promise<Row[]> },
) {
  const page = await listPage({
    ...list,
    secret,
    scope: { tenant: principal.tenantId, user: principal.userId, operationId },
    // Also scopes the tenant: the Operation must be the caller's (and visible to it).
    filters: [...list.filters, operationVisibleTo(principal, operationId)],
  });
  if (!page.items.length) await getVisibleOperation(db, principal, operationId);
  return page;
}
