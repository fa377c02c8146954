import { changeAuthorOf } from "../../platform/http/context";
import { operationCoordinator } from "../coordinator/runner";
import { afterCommit } from "../../platform/core/after-commit";
import { defineRoute } from "../../platform/http/routes";
import { createOperation } from "../commands";
import { toOperationRepresentation } from "../queries";
import { createOperationBody, operationRepresentation } from "../schemas";
import { setETag } from "./etag";

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
  async function handleCreateOperation(c, { body }) {
    const row = await createOperation(c.var.db, c.var.principal, changeAuthorOf(c), body);
    if (row.activateAt !== null || row.deactivateAt !== null) {
      // The Operation is saved: an alarm that could not be set is set by the schedule sweep once the time is overdue.
      await afterCommit(c.var.requestId, "arming the new Operation's schedule (the schedule sweep re-arms it)", () =>
        operationCoordinator(c).syncSchedule(row.id),
      );
    }
    const representation = toOperationRepresentation(row);
    c.header("Location", `/v1/operations/${row.id}`);
    setETag(c, representation.version);
    return c.json(representation, 201);
  },
);
