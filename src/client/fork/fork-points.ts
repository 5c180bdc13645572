import { ArborClientError } from '../errors.js';
import type { ForkPointState } from '../../shared/fork.js';
import type { SessionInput } from '../../shared/session.js';
import type { ReplaySession, TurnEnd } from './replay-run.js';
import { childrenStillRunning, type HistoryReads, type SessionRun } from './session-runs.js';

/** A session's state at a turn end, with the input of the run it was in (whose options the fork repeats). */
export interface ForkPoint {
  sessionId: string;
  /** The run the state was read in (its task queue is the fork's). */
  run: SessionRun;
  input: SessionInput;
  /** The transcript position (entries kept), and the workflow time of the turn end. */
  position: number;
  atMs: number;
  /** Absent: the session had no turn end by then, and starts again from its first input. */
  state?: ForkPointState;
}

/**
 * The state of `sessionId` at the turn end where its transcript had `position` entries (default: its latest turn end),
 * read from the run that holds it, newest run first. A position past the latest turn end, or inside a turn, is refused.
 */
export async function forkPointAtPosition(
  reads: HistoryReads,
  replays: ReplaySession,
  sessionId: string,
  position?: number,
): Promise<ForkPoint> {
  if (position !== undefined && (!Number.isInteger(position) || position < 1))
    throw new ArborClientError(`A fork position is a whole number of transcript entries, at least 1 (got ${position}).`);
  let wanted = position;
  let newest = true;
  for await (const run of reads.runs(sessionId)) {
    // Read while this run replays: the sub-agents it started and saw no end of are those the fork will read next.
    if (newest) reads.readAhead(childrenStillRunning(run));
    // The latest turn end is not known before the replay: every turn end then hands back its state, so one replay does.
    const target = wanted === undefined ? { not_after_ms: Number.MAX_SAFE_INTEGER } : { position: wanted };
    let [replayed] = await replays.replay([{ sessionId, run, target }]);
    const latest = replayed!.turnEnds.at(-1);
    if (newest) {
      newest = false;
      if (wanted === undefined) {
        if (!latest) throw new ArborClientError(`Session ${sessionId} has not finished a turn yet: there is no point to fork it at.`);
        wanted = latest.total;
        if (!latest.state) [replayed] = await replays.replay([{ sessionId, run, target: { position: wanted } }]);
      } else if (!latest || wanted > latest.total) {
        throw new ArborClientError(
          `Position ${wanted} is past the end of session ${sessionId}: its latest turn ended at position ${latest?.total ?? 0}.`,
        );
      }
    }
    const found = replayed!.turnEnds.find((end) => end.total === wanted && end.state);
    if (found) return point(sessionId, run, replayed!.input, found);
    const first = replayed!.turnEnds[0];
    const startsBefore = !replayed!.input.carried || (first !== undefined && first.total < wanted!);
    if (startsBefore) throw new ArborClientError(insideTurn(sessionId, wanted!, replayed!.turnEnds));
  }
  throw new ArborClientError(`Position ${wanted} of session ${sessionId} is in no run of its history.`);
}

/**
 * The state of each sub-agent at its latest turn end not after `notAfterMs` (workflow time), read from the newest run
 * that began by then; one with no turn end by then is started again from its first input. Replays the current runs of
 * all of them in one replay worker.
 */
export async function forkPointsAtTime(
  reads: HistoryReads,
  replays: ReplaySession,
  sessionIds: readonly string[],
  notAfterMs: number,
): Promise<ForkPoint[]> {
  const runs = sessionIds.map((id) => reads.runs(id));
  const firstRuns = await Promise.all(runs.map(async (iterator) => (await iterator.next()).value as SessionRun));
  const replayed = await replays.replay(
    sessionIds.map((sessionId, index) => ({ sessionId, run: firstRuns[index]!, target: { not_after_ms: notAfterMs } })),
  );
  return Promise.all(
    sessionIds.map(async (sessionId, index) => {
      let run = firstRuns[index]!;
      let replay = replayed[index]!;
      for (;;) {
        const found = replay.turnEnds.filter((end) => end.state && end.at_ms <= notAfterMs).at(-1);
        if (found) return point(sessionId, run, replay.input, found);
        const previous = (await runs[index]!.next()).value as SessionRun | undefined;
        if (!replay.input.carried || !previous) return { sessionId, run, input: replay.input, position: 0, atMs: replay.startedAtMs };
        run = previous;
        replay = (await replays.replay([{ sessionId, run, target: { not_after_ms: notAfterMs } }]))[0]!;
      }
    }),
  );
}

function point(sessionId: string, run: SessionRun, input: SessionInput, end: TurnEnd): ForkPoint {
  return { sessionId, run, input, position: end.total, atMs: end.at_ms, ...(end.state ? { state: end.state } : {}) };
}

function insideTurn(sessionId: string, position: number, ends: TurnEnd[]): string {
  const before = ends.filter((end) => end.total < position).at(-1)?.total;
  const after = ends.find((end) => end.total > position)?.total;
  const nearest = [before, after].filter((total) => total !== undefined).join(' and ');
  return (
    `Position ${position} of session ${sessionId} is inside a turn (between a message and the turn's end, in its model ` +
    `calls and tool rounds); a fork starts where a turn ended${nearest ? `: the nearest are ${nearest}` : ''}.`
  );
}
