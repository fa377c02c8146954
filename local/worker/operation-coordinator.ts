import { OperationCoordinator as DeployedOperationCoordinator } from "../../src/index";

/** What ringing an Operation's armed alarm found and left (ISO times; null: no alarm). */
export interface RungAlarm {
  armedAt: string | null;
  armedAfter: string | null;
}

const isoOrNull = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

/**
 * The Operation's object as a local server runs it: the deployed one, plus a way for a check to ring
 * the alarm it has armed as at the alarm's own time, so that a schedule set hours ahead is seen to run
 * (across a restart of the server, say) without waiting for it.
 */
export class OperationCoordinator extends DeployedOperationCoordinator {
  async ringArmedAlarm(): Promise<RungAlarm> {
    const armedAt = await this.ctx.storage.getAlarm();
    if (armedAt !== null) await this.ringSchedule(armedAt);
    return { armedAt: isoOrNull(armedAt), armedAfter: isoOrNull(await this.ctx.storage.getAlarm()) };
  }
}
