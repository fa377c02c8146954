import { actorOf } from "../../platform/principal";
import { violatesUnique } from "../../platform/db";
import { ApiError } from "../../platform/errors";
import { appendEvent, commitBatch } from "../../platform/events";
import { idPrefixes, newId } from "../../platform/ids";
import { foldedText, searchText, sortText } from "../../platform/locale";
import { defineRoute } from "../../platform/routes";
import { operations } from "../../platform/tables";
import { nowIso } from "../../platform/time";
import { ownerStatements } from "../commands";
import { toOperationRepresentation, type OperationRow } from "../queries";
import { createOperationBody, operationRepresentation } from "../schemas";
import { withVersionHeaders } from "./headers";

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations",
    operationId: "createOperation",
    summary: "Create an Operation",
    description: "Creates the Operation in DRAFT with no lines and no accounts.",
    tag: "Operations",
    roles: ["OPERATOR"],
    body: createOperationBody,
    responses: {
      201: { description: "Created.", schema: operationRepresentation, headers: { Location: "URL of the new Operation", ETag: "Its version" } },
    },
    errors: ["duplicate_code", "idempotency_key_reused"],
  },
  async (c, { body }) => {
    const principal = c.get("principal");
    const db = c.var.db;
    const id = newId(idPrefixes.operation);
    const now = nowIso();
    const ownerIds = [...new Set(body.ownerIds ?? [])];
    const name = body.name;
    const row: OperationRow = {
      id,
      tenantId: principal.tenantId,
      code: body.code,
      externalId: body.externalId ?? null,
      name,
      description: body.description ?? {},
      nameSearch: searchText(name),
      nameSort: sortText(name, principal.tenantDefaultLocale),
      nameFolded: foldedText(name),
      type: body.type,
      status: "DRAFT",
      startDate: body.startDate,
      endDate: body.endDate,
      activateAt: body.schedule?.activateAt ?? null,
      deactivateAt: body.schedule?.deactivateAt ?? null,
      ownerIds,
      lineCount: 0,
      accountCount: 0,
      cartCount: 0,
      orderCount: 0,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await commitBatch(db, [
        db.insert(operations).values(row),
        ...ownerStatements(db, principal.tenantId, id, ownerIds, false),
        appendEvent(db, {
          tenantId: principal.tenantId,
          type: "operation.created",
          actor: actorOf(principal),
          operationId: id,
          data: { code: body.code, type: body.type },
        }),
      ]);
    } catch (error) {
      // Only the (tenant, code) key means a taken code; any other failure is not the caller's.
      if (violatesUnique(error, operations.tenantId, operations.code)) throw new ApiError("duplicate_code", `Operation code ${body.code} is already used in this tenant.`);
      throw error;
    }
    if (row.activateAt !== null || row.deactivateAt !== null) await c.var.coordinator.syncSchedule(id);
    // The row as inserted is the row as stored: no second read.
    const representation = toOperationRepresentation(row);
    c.header("Location", `/v1/operations/${id}`);
    withVersionHeaders(c, representation.version);
    return c.json(representation, 201);
  },
);
