// The Worker a local server runs (`npm start`, the tests' servers): the production entry plus the
// operator commands' routes (operator-routes.ts), with Operation objects whose armed alarm a check can
// ring without waiting for its time (operation-coordinator.ts). Never deployed: `wrangler deploy`
// builds src/index.ts, which imports nothing under local/.
import { buildApp } from "../../src/app";
import worker from "../../src/index";
import type { Env } from "../../src/platform/core/env";
import { serve } from "../../src/platform/http/serve";
import { mountOperatorRoutes } from "./operator-routes";

export { TenantMover } from "../../src/index";
export { OperationCoordinator } from "./operation-coordinator";

export default {
  fetch: serve(buildApp(mountOperatorRoutes)),
  scheduled: worker.scheduled,
  queue: worker.queue,
} satisfies ExportedHandler<Env>;
