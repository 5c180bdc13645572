import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { ArborClientError } from './client-errors.js';
import { connectClient, loadConnectionSettings, type ConnectionOverrides, type ConnectionSettings } from './connection.js';
import { sessionInputSchema, sessionWorkflowType, type SessionOptions } from './shared/session.js';
import { defaultTitle } from './shared/titles.js';
import { SessionHandle, type SessionHandleOptions } from './session-handle.js';
import { checkQueryTimeout } from './query-failures.js';
import { MemoryHandle } from './memory-handle.js';
import { AutomationsHandle } from './automations-handle.js';
import { defaultOwner } from './shared/tools/memory.js';
import { automationIdOfRun } from './shared/tools/automations.js';
import { isToolName, toolNames } from './shared/tools/registry.js';
import type { arborSessionV2 } from './workflows/session-workflow.js';

export { ArborClientError } from './client-errors.js';
export { SessionHandle, type SessionHandleOptions, type WaitOptions } from './session-handle.js';
export { UnansweredQueryError } from './query-failures.js';
export type { SessionOptions, SessionSnapshot, SessionStatus, TranscriptEntry, SessionResult } from './shared/session.js';
export type { SessionEvent, SessionEventType, EventPage } from './shared/events.js';
export type { Question, QuestionOption, QuestionSet } from './shared/tools/ask-user.js';
export type { Answers, AnswerValue, ResolvedAnswer } from './shared/answers.js';
export type { AnswerReceipt } from './shared/questions.js';
export type { MemoryRecord } from './shared/tools/memory.js';
export { MemoryHandle } from './memory-handle.js';
export { AutomationsHandle } from './automations-handle.js';
export type { Automation, AutomationRun } from './shared/tools/automations.js';
export type { TreeEvent, TreeReadOptions } from './events/tree-events.js';
export type { EventReadOptions } from './events/session-events.js';

export interface ConnectOptions extends ConnectionOverrides, SessionHandleOptions {
  env?: NodeJS.ProcessEnv;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns the id if it is a session id (a UUID, or an automation run id), else throws an error that says so. */
export function checkSessionId(sessionId: string): string {
  if (!uuidPattern.test(sessionId) && !automationIdOfRun(sessionId)) {
    throw new ArborClientError(`"${sessionId}" is not a session id: expected a UUID such as 1b4e28ba-2fa1-11d2-883f-0016d3cca427.`);
  }
  return sessionId;
}

/** Arbor's client SDK: starts sessions and gets handles to them, over the same connection settings as the worker. */
export class ArborClient {
  constructor(
    readonly temporal: Client,
    readonly taskQueue: string,
    private readonly handleOptions: SessionHandleOptions = {},
  ) {
    checkQueryTimeout(handleOptions.queryTimeoutMs);
  }

  static async connect(options: ConnectOptions = {}): Promise<ArborClient> {
    return ArborClient.fromSettings(loadConnectionSettings(options.env ?? process.env, options), options);
  }

  static async fromSettings(settings: ConnectionSettings, handleOptions: SessionHandleOptions = {}): Promise<ArborClient> {
    checkQueryTimeout(handleOptions.queryTimeoutMs);
    return new ArborClient(await connectClient(settings), settings.taskQueue, handleOptions);
  }

  /** Starts a root session and returns its handle; the session id is a new UUID. */
  async startSession(options: SessionOptions): Promise<SessionHandle> {
    const parsed = sessionInputSchema().safeParse(options);
    if (!parsed.success) throw new ArborClientError(`Invalid session options: ${z.prettifyError(parsed.error)}`);
    const input = parsed.data;
    if (!input.instruction?.trim()) throw new ArborClientError('A session needs an instruction: say what the agent should do.');
    // The workflow would silently leave out a misspelt tool; the caller hears about it here.
    const unknownTools = (input.tools ?? []).filter((name) => !isToolName(name));
    if (unknownTools.length > 0) {
      throw new ArborClientError(`Unknown tool name(s): ${unknownTools.join(', ')}. Known tools: ${toolNames.join(', ')}.`);
    }
    const sessionId = randomUUID();
    await this.temporal.workflow.start<typeof arborSessionV2>(sessionWorkflowType, {
      workflowId: sessionId,
      taskQueue: this.taskQueue,
      args: [input],
      staticSummary: input.title ?? defaultTitle(input.instruction),
    });
    return new SessionHandle(sessionId, this.temporal, this.handleOptions);
  }

  /** A handle to an existing session. The id must be a session id (a UUID). */
  session(sessionId: string): SessionHandle {
    return new SessionHandle(checkSessionId(sessionId), this.temporal, this.handleOptions);
  }

  /** The memories of an owner (default `default`), shared by all the owner's sessions. */
  memories(owner = defaultOwner): MemoryHandle {
    return new MemoryHandle(owner, this.temporal, this.taskQueue);
  }

  /** The automations of an owner (default `default`): scheduled runs, each a new session. */
  automations(owner = defaultOwner): AutomationsHandle {
    return new AutomationsHandle(owner, this.temporal, this.taskQueue);
  }

  async close(): Promise<void> {
    await this.temporal.connection.close();
  }
}
