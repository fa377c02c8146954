import { describe, expect, it } from "vitest";
import { expectProblem, newTenant, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";
import { webhookUrlProblem } from "../../src/webhooks/urls";

/*
 * Addresses that reach a loopback or private host by another spelling: a trailing dot (the same
 * name to a resolver), or an IPv6 address carrying an IPv4 one (a translator or relay on the way
 * reaches the IPv4 host). Each is judged as the host it names, with and without local receivers.
 */
const REFUSED: [name: string, url: string][] = [
  ["trailing-dot localhost", "https://localhost./x"],
  ["trailing-dot localhost over http", "http://localhost./x"],
  ["trailing-dot private suffix", "https://printer.local./x"],
  ["trailing-dot single label", "https://intranet./x"],
  ["NAT64 64:ff9b::/96 embedding 127.0.0.1", "https://[64:ff9b::7f00:1]/x"],
  ["NAT64 embedding 10.0.0.1", "https://[64:ff9b::a00:1]/x"],
  ["local-use NAT64 64:ff9b:1::/48 embedding 127.0.0.1", "https://[64:ff9b:1::7f00:1]/x"],
  ["6to4 2002::/16 embedding 127.0.0.1", "https://[2002:7f00:1::]/x"],
  ["6to4 embedding 169.254.169.254", "https://[2002:a9fe:a9fe::1]/x"],
  ["Teredo 2001::/32 whose client is 127.0.0.1", "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x"],
  ["IPv4-compatible ::/96 embedding 127.0.0.1", "https://[::7f00:1]/x"],
  ["IPv4-compatible embedding 192.168.1.1", "https://[::c0a8:101]/x"],
  ["IPv4-mapped embedding 127.0.0.1", "https://[::ffff:7f00:1]/x"],
];

const ACCEPTED: [name: string, url: string][] = [
  ["trailing-dot public name", "https://hooks.example.com./x"],
  ["NAT64 embedding a public address (8.8.8.8)", "https://[64:ff9b::808:808]/x"],
  ["6to4 embedding a public address (8.8.8.8)", "https://[2002:808:808::1]/x"],
  ["Teredo whose client is public (8.8.8.8)", "https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/x"],
  ["IPv4-compatible embedding a public address", "https://[::808:808]/x"],
  ["a plain public IPv6 address", "https://[2606:4700::1111]/x"],
];

describe.each([
  ["public receivers only", false],
  ["local receivers allowed", true],
])("the webhook URL guard (%s)", (_mode, allowLocal) => {
  it.each(REFUSED)("refuses %s (%s)", (_name, url) => {
    expect(webhookUrlProblem(url, allowLocal)).toBeDefined();
  });

  it.each(ACCEPTED)("accepts %s (%s)", (_name, url) => {
    expect(webhookUrlProblem(url, allowLocal)).toBeUndefined();
  });
});

describe("the webhook URL guard over HTTP", () => {
  it("answers 400 validation_failed on body.url for each refused address, with local receivers allowed (the test setting)", async () => {
    const operator = await newTenant();
    for (const [name, url] of REFUSED) {
      const problem = expectProblem(await callRoute(operator, routes.createWebhook, { body: { url } }), 400, "validation_failed");
      expect(problem.errors?.[0].field, name).toBe("body.url");
    }
  });
});
