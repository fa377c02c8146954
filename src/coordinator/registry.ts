import { attachmentCommands } from "../attachments/commands";
import { checkoutCommands } from "../checkout/commands";
import { lineCommands } from "../lines/commands";
import { operationCommands } from "../operations/commands";
import type { Command } from "../platform/commands";

/** Every command an Operation's Durable Object runs, by the name the Worker sends. */
export const COMMANDS: ReadonlyMap<string, Command<unknown, unknown>> = registry([
  ...operationCommands,
  ...lineCommands,
  ...attachmentCommands,
  ...checkoutCommands,
] as Command<unknown, unknown>[]);

function registry(commands: Command<unknown, unknown>[]): Map<string, Command<unknown, unknown>> {
  const byName = new Map<string, Command<unknown, unknown>>();
  for (const command of commands) {
    if (byName.has(command.name)) throw new Error(`Two commands are named ${command.name}.`);
    byName.set(command.name, command);
  }
  return byName;
}
