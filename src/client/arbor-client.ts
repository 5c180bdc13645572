import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { ArborClientError } from './errors.js';
import { connectClient, loadConnectionSettings, type ConnectionOverrides, type ConnectionSettings } from './connection.js';
import { defaultProfile, profileTools } from '../shared/tools/profiles/index.js';
import { sessionInputSchema, sessionWorkflowType, type SessionOptions } from '../shared/session.js';
import { defaultTitle } from '../shared/titles.js';
import { identityAtStart, namespaceHasIdentityAttributes } from './start-with-identity.js';
import { SessionHandle, type SessionHandleOptions } from './session-handle.js';
import { checkQueryTimeout } from './access/query-failures.js';
import { neutralTitle, neutralTitlesFromEnv } from './visible-title.js';
import { MemoryHandle } from './memory-handle.js';
import { checkMemoryStore, memoryStoreFromEnv, type MemoryStoreSettings } from './access/memory-store-settings.js';
import { openMemoryStore, type MemoryStoreAccess } from './access/memory-stores.js';
import { AutomationsHandle } from './automations-handle.js';
import { defaultOwner } from '../shared/tools/memory.js';
import { isToolName, toolNames } from '../shared/tools/registry.js';
import { checkSessionId, resolveSessionId } from './session-id.js';
import { hostToolNamePattern } from '../shared/host-tools.js';
import type { SessionWorkflow } from '../shared/workflow-types.js';
import { listSessions, sessionOwnerMemoKey, type ListSessionsOptions, type SessionSummary } from './session-list.js';
import { activeTracing } from '../tracing/tracing-state.js';

export interface ArborClientOptions extends SessionHandleOptions {
  /**
   * Put a neutral title ("Arbor session") instead of a session's own in its static summary and its ArborTitle search
   * attribute, which Temporal stores unencrypted (README "Encrypted payloads"). Default: ARBOR_NEUTRAL_TITLES=on.
   */
  neutralTitles?: boolean;
}

export interface ConnectOptions extends ConnectionOverrides, ArborClientOptions {
  env?: NodeJS.ProcessEnv;
  /**
   * Where memories() reads and writes: the same store as the worker's (default: ARBOR_MEMORY_STORE and
   * ARBOR_MEMORY_DATABASE_URL of `env`, else each owner's memory workflow).
   */
  memoryStore?: MemoryStoreSettings;
}

/** Arbor's client SDK: starts sessions and gets handles to them, over the same connection settings as the worker. */
export class ArborClient {
  /** Whether sessions start with their identity search attributes: whether the namespace has them, asked once. */
  private identityAttributes: Promise<boolean> | undefined;
  /** The memory store, opened at the first memories() (undefined: not yet). */
  private memoryStoreAccess: MemoryStoreAccess | undefined;

  /** `memoryStore`: where memories() goes (default: as the process's environment says, read at the first memories()). */
  constructor(
    readonly temporal: Client,
    readonly taskQueue: string,
    private readonly handleOptions: ArborClientOptions = {},
    private readonly memoryStore?: MemoryStoreSettings | (() => MemoryStoreSettings),
  ) {
    checkQueryTimeout(handleOptions.queryTimeoutMs);
  }

  static async connect(options: ConnectOptions = {}): Promise<ArborClient> {
    const env = options.env ?? process.env;
    return ArborClient.fromSettings(
      loadConnectionSettings(env, options),
      { ...options, neutralTitles: options.neutralTitles ?? neutralTitlesFromEnv(env) },
      options.memoryStore ?? (() => memoryStoreFromEnv(env)),
    );
  }

  static async fromSettings(
    settings: ConnectionSettings,
    handleOptions: ArborClientOptions = {},
    memoryStore?: MemoryStoreSettings | (() => MemoryStoreSettings),
  ): Promise<ArborClient> {
    checkQueryTimeout(handleOptions.queryTimeoutMs);
    const options = { ...handleOptions, neutralTitles: handleOptions.neutralTitles ?? neutralTitlesFromEnv() };
    return new ArborClient(await connectClient(settings), settings.taskQueue, options, memoryStore);
  }

  /** Starts a root session and returns its handle; the session id is a new UUID. */
  async startSession(options: SessionOptions): Promise<SessionHandle> {
    const parsed = sessionInputSchema().safeParse(options);
    if (!parsed.success) throw new ArborClientError(`Invalid session options: ${z.prettifyError(parsed.error)}`);
    // The profile is always named, so the session never has to choose one (see the workflow's sessionProfile).
    // Interruptible unless told otherwise: a turn runs in a cancellation scope an interrupt message can cancel.
    const input = { ...parsed.data, profile: parsed.data.profile ?? defaultProfile, interruptible: parsed.data.interruptible ?? true };
    if (!input.instruction?.trim()) throw new ArborClientError('A session needs an instruction: say what the agent should do.');
    // A name that cannot be a tool is refused here; a host tool's name is checked by the session against its catalogue
    // (which only the worker knows), and one no worker serves is a notice in the session's transcript.
    const invalidTools = (input.tools ?? []).filter((name) => !isToolName(name) && !hostToolNamePattern.test(name));
    if (invalidTools.length > 0) {
      throw new ArborClientError(
        `Invalid tool name(s): ${invalidTools.join(', ')}. A tool is a built-in one (${toolNames.join(', ')}) or a host tool, ` +
          'whose name is 1-64 letters, digits, underscores or hyphens.',
      );
    }
    const outsideProfile = (input.tools ?? []).filter((name) => isToolName(name) && !profileTools(input.profile).includes(name));
    if (outsideProfile.length > 0) {
      throw new ArborClientError(
        `The ${input.profile} profile has no tool(s) ${outsideProfile.join(', ')}. Its built-in tools: ` +
          `${profileTools(input.profile).join(', ')}; choose another profile (rtc, claurst, soai, all) for the others.`,
      );
    }
    const sessionId = randomUUID();
    const neutral = this.handleOptions.neutralTitles === true || input.neutral_titles === true;
    const title = neutral ? neutralTitle : (input.title ?? defaultTitle(input.instruction));
    this.identityAttributes ??= namespaceHasIdentityAttributes(this.temporal);
    await this.temporal.workflow.start<SessionWorkflow>(sessionWorkflowType, {
      workflowId: sessionId,
      taskQueue: this.taskQueue,
      // The session hands neutral titles down to its sub-agents.
      args: [neutral ? { ...input, neutral_titles: true as const } : input],
      staticSummary: title,
      memo: { [sessionOwnerMemoKey]: input.owner ?? defaultOwner },
      ...((await this.identityAttributes) ? { typedSearchAttributes: identityAtStart(sessionId, title) } : {}),
    });
    return new SessionHandle(sessionId, this.temporal, this.handleOptions);
  }

  /** A handle to an existing session by its id: any workflow id (a UUID for the sessions Arbor starts). */
  session(sessionId: string): SessionHandle {
    return new SessionHandle(checkSessionId(sessionId), this.temporal, this.handleOptions);
  }

  /**
   * A handle to the session that `idOrPrefix` names: a workflow id whose workflow is an Arbor session, or the start
   * of exactly one session's UUID. Throws ArborClientError for none, for several (naming them), or for a workflow
   * that is not a session.
   */
  async findSession(idOrPrefix: string): Promise<SessionHandle> {
    return this.session(await resolveSessionId(this.temporal, idOrPrefix));
  }

  /**
   * Root sessions, newest activity first, filtered by status, owner and title (a part of it, any case), from Temporal
   * visibility: it needs no worker and works on any cluster with Arbor's search attributes.
   */
  async listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    return listSessions(this.temporal, options);
  }

  /** The memories of an owner (default `default`), shared by all the owner's sessions. */
  memories(owner = defaultOwner): MemoryHandle {
    return new MemoryHandle(owner, this.temporal, this.taskQueue, this.memoryAccess());
  }

  /** The automations of an owner (default `default`): scheduled runs, each a new session. */
  automations(owner = defaultOwner): AutomationsHandle {
    return new AutomationsHandle(owner, this.temporal, this.taskQueue, { neutralTitles: this.handleOptions.neutralTitles === true });
  }

  async close(): Promise<void> {
    await this.closeMemoryStore();
    await this.temporal.connection.close();
    // A traced process (OTEL_* set) sends the spans it still holds: a CLI command exits right after.
    await activeTracing()
      ?.flush()
      .catch(() => {});
  }

  /** Closes the database connections memories() opened, if any, and leaves the Temporal connection open. */
  async closeMemoryStore(): Promise<void> {
    const access = this.memoryStoreAccess;
    this.memoryStoreAccess = undefined;
    await access?.close();
  }

  private memoryAccess(): MemoryStoreAccess {
    if (!this.memoryStoreAccess) {
      let settings: MemoryStoreSettings;
      try {
        const given = typeof this.memoryStore === 'function' ? this.memoryStore() : (this.memoryStore ?? memoryStoreFromEnv());
        settings = checkMemoryStore(given);
      } catch (error) {
        throw new ArborClientError((error as Error).message);
      }
      this.memoryStoreAccess = openMemoryStore(settings, this.temporal, this.taskQueue);
    }
    return this.memoryStoreAccess;
  }
}
