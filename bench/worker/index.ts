// The bench's own Worker entry: the API's app plus the baselines `npm run bench` measures against.
// Never deployed: src/index.ts (the production entry) does not import anything under bench/.
import { buildApp } from "../../src/app";
import { serve } from "../../src/platform/serve";
import { mountBenchRoutes } from "./routes";

export { OperationCoordinator } from "../../src/coordinator/durable-object";

export default { fetch: serve(buildApp(mountBenchRoutes)) };
