import { version } from "../../../package.json";
import type { Env } from "./env";

/** The API's version: package.json's, the OpenAPI document's info.version and the typed client's package version alike. */
export const API_VERSION = version;

/** Which build answered: the version, and the deployed commit when the deployment names it (BUILD_COMMIT). */
export function buildVersion(env: Pick<Env, "BUILD_COMMIT">): string {
  return env.BUILD_COMMIT ? `${API_VERSION}+${env.BUILD_COMMIT}` : API_VERSION;
}

/** The header every answer carries it in. */
export const VERSION_HEADER = "svc-api-version";
