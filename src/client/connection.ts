import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { tracingSettingsFromEnv } from '../tracing/tracing-settings.js';
import { loadTracing } from '../tracing/load-tracing.js';
import { dataConverterOption } from '../codec/data-converter.js';
import { encryptionKeysFromEnv, type EncryptionKey } from '../codec/encryption-keys.js';

export const defaultAddress = 'localhost:7233';
export const defaultNamespace = 'default';
export const defaultTaskQueue = 'arbor';

/** Where and how to reach Temporal, following Temporal's own conventions (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, profiles). */
export interface ConnectionSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** True when the user named a server (TEMPORAL_ADDRESS, a profile, or an explicit option). */
  addressGiven: boolean;
  connectionOptions: NativeConnectionOptions;
  /** Payload encryption keys (ARBOR_ENCRYPTION_KEYS), newest first; none: payloads are not encrypted. */
  encryptionKeys?: readonly EncryptionKey[];
}

export interface ConnectionOverrides {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

export function loadConnectionSettings(env: NodeJS.ProcessEnv = process.env, overrides: ConnectionOverrides = {}): ConnectionSettings {
  // A blank variable means "not set", as it does for ARBOR_TASK_QUEUE.
  const definedEnv = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== '')) as Record<
    string,
    string
  >;
  const config = loadClientConnectConfig({ overrideEnvVars: definedEnv });
  const address = overrides.address ?? config.connectionOptions.address ?? defaultAddress;
  return {
    address,
    namespace: overrides.namespace ?? config.namespace ?? defaultNamespace,
    taskQueue: overrides.taskQueue ?? (env.ARBOR_TASK_QUEUE?.trim() || defaultTaskQueue),
    addressGiven: overrides.address !== undefined || config.connectionOptions.address !== undefined,
    connectionOptions: { ...config.connectionOptions, address },
    encryptionKeys: encryptionKeysFromEnv(env),
  };
}

export async function connectClient(settings: ConnectionSettings): Promise<Client> {
  const { address, tls, apiKey, metadata } = settings.connectionOptions;
  const connection = await Connection.connect({
    address,
    ...(tls !== undefined ? { tls } : {}),
    ...(apiKey !== undefined ? { apiKey: apiKey as string } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  });
  // Traced (OTEL_* variables, README "Tracing"): the sessions it starts and signals carry its trace context.
  const tracing = await loadTracing(tracingSettingsFromEnv());
  const interceptors = tracing ? { interceptors: tracing.clientInterceptors() } : {};
  return new Client({ connection, namespace: settings.namespace, ...interceptors, ...dataConverterOption(settings.encryptionKeys) });
}
