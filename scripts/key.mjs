// npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>] [--locale <tag>] [--remote]
// Prints the plain key alone on the last line of stdout (everything else goes to stderr).
import { parseArgs } from "node:util";
import { issueKey } from "./lib/keys.mjs";

const usage = "usage: npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>] [--locale <tag>] [--remote]";

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      tenant: { type: "string" },
      role: { type: "string" },
      user: { type: "string" },
      locale: { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
if (options.help) {
  console.error(usage);
  process.exit(0);
}

try {
  const role = options.role?.toUpperCase();
  const issued = await issueKey({
    tenant: options.tenant,
    role,
    user: options.user,
    locale: options.locale,
    remote: options.remote,
    persistTo: options["persist-to"],
  });
  const where = options.remote ? "remote D1" : "local D1";
  console.error(
    `${issued.tenantCreated ? "Created tenant" : "Tenant"} ${options.tenant} (default locale ${issued.tenantDefaultLocale}); ` +
      `issued an ${role} key${role === "ACCOUNT" ? ` for user ${options.user}` : ""} in the ${where}. ` +
      "It is shown once: store it now.",
  );
  if (!issued.tenantCreated && options.locale && options.locale !== issued.tenantDefaultLocale) {
    console.error(`Note: the tenant already existed; its default locale stays ${issued.tenantDefaultLocale}.`);
  }
  process.stdout.write(`${issued.key}\n`);
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(1);
}
