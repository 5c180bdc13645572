import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  currentUpdateInfo,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { memoryReadQuery, memoryWritesUpdate, memoryWriteUpdate } from '../shared/messages.js';
import { batchShapeError, refuseBatch } from '../shared/write-batches.js';
import { applyWriteBatch } from './write-batches.js';
import { parseMemoryRead as parseRead, parseMemoryWrite as parseWrite } from '../shared/memory-requests.js';
import { MemoryStore } from './memory-store.js';
import { memoryStoreInputProblem } from '../shared/memory-store-input.js';
import { invalidMemoryStoreInputType } from '../shared/session-input.js';
import type { MemoryStoreInput, MemoryStoreWorkflow } from '../shared/workflow-types.js';
import { RecentReplies } from './recent-replies.js';

/** Writes per run before the store continues as new, keeping each run's history short. */
const writesPerRun = 500;

/**
 * One owner's memory store: an entity workflow that runs as long as the owner has memories. Writes are updates
 * (validated, applied in order, deduplicated by update id or by the key of each write in a batch, across
 * continue-as-new too); reads are queries.
 */
export const memoryStoreWorkflow = (async (input: MemoryStoreInput): Promise<void> => {
  // Asked only for an input the store refuses (so a valid one records nothing): before, such a store failed its
  // workflow task for ever, or ran with no owner.
  const problem = memoryStoreInputProblem(input);
  if (problem !== null && patched('memory-store-input-checked'))
    throw ApplicationFailure.create({ type: invalidMemoryStoreInputType, message: problem, nonRetryable: true });
  const store = new MemoryStore(() => new Date(), input.carried);
  // Every write of the run before this one, so a write retried across a continue-as-new is still recognised.
  const recent = new RecentReplies(input.recent_writes, 2 * writesPerRun);
  let writes = 0;
  setHandler(
    memoryWriteUpdate,
    (request) => {
      const updateId = currentUpdateInfo()?.id;
      const earlier = recent.earlier(updateId);
      if (earlier) return earlier;
      const parsed = parseWrite(request);
      if (!parsed.ok) return parsed;
      writes += 1;
      return recent.keep(updateId, store.write(parsed.result));
    },
    {
      validator: (request) => {
        const parsed = parseWrite(request);
        if (!parsed.ok) throw new Error(parsed.error);
      },
    },
  );
  setHandler(
    memoryWritesUpdate,
    (batch) => {
      // Validators do not run on replay: a malformed batch is answered with a refusal for each write it holds.
      const malformed = batchShapeError(batch);
      if (malformed) return refuseBatch(batch, malformed);
      return applyWriteBatch(batch, recent, (request) => {
        const parsed = parseWrite(request);
        if (!parsed.ok) return parsed;
        writes += 1;
        return store.write(parsed.result);
      });
    },
    {
      validator: (batch) => {
        const malformed = batchShapeError(batch);
        if (malformed) throw new Error(malformed);
      },
    },
  );
  setHandler(memoryReadQuery, (request) => store.read(parseRead(request)));
  await condition(() => writes >= writesPerRun || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof memoryStoreWorkflow>({ owner: input.owner, carried: store.carry(), recent_writes: recent.carry() });
}) satisfies MemoryStoreWorkflow;
