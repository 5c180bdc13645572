/**
 * The namespace a Temporal error says does not exist, from either wording the server and the SDK use
 * (`Namespace not found: 'x'`, `5 NOT_FOUND: Namespace x is not found.`), or undefined for any other error.
 */
export function missingNamespace(message: string): string | undefined {
  const match = /Namespace not found: '([^']+)'|Namespace (\S+) is not found/.exec(message);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** What every command prints for a namespace the server does not have: how to create it, or choose another. */
export function missingNamespaceMessage(namespace: string, address: string | undefined): string {
  const at = address ? ` --address ${address}` : '';
  return (
    `The Temporal server${address ? ` at ${address}` : ''} has no namespace "${namespace}". Create it with ` +
    `\`temporal operator namespace create --namespace ${namespace}${at}\` (on a cluster, an administrator may have to), ` +
    'or choose one that exists with --namespace or TEMPORAL_NAMESPACE.'
  );
}
