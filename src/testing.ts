/**
 * `arbor/testing`: test your agents on Temporal's time-skipping test server, with scripted models, helpers that are
 * safe there, and replay of recorded histories. Works with any test runner (vitest, node:test, Jest).
 */
export { createTestArbor, defaultScriptedModelName, type TestArbor, type TestArborOptions } from './testing/test-arbor.js';
export { SessionEndedError, WaitTimeoutError, type WaitBound } from './testing/session-waits.js';
export { ScriptedModel, ScriptProblem, type ModelResponder } from './testing/scripted-model.js';
export { ScriptedOpenAIServer, inProcessFetch } from './testing/model-transports.js';
export {
  delayed,
  httpError,
  rateLimited,
  text,
  toolCall,
  toolCalls,
  type HttpErrorStep,
  type ModelRequest,
  type ModelStep,
  type RawStep,
  type RequestMessage,
  type ScriptItem,
  type TextStep,
  type ToolCallStep,
  type ToolCallsStep,
  type StepUsage,
} from './testing/model-steps.js';
export { replayHistories, ReplayFailedError, type ReplayOptions, type ReplayedHistory } from './testing/replay.js';
export { TemporalBinaryNotFoundError } from './temporal/binaries.js';
