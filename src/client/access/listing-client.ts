import { Client } from '@temporalio/client';
import { ListingCodec } from '../../codec/listing-codec.js';

const listingClients = new WeakMap<Client, Client>();

/**
 * A client on `client`'s connection and namespace for visibility listings: it decodes each listed workflow's memo
 * on its own, and one it cannot decrypt (no key here, or another key) becomes an `UnreadablePayload` instead of
 * failing the page. Only for listings: a value read through it may be that marker.
 */
export function listingClient(client: Client): Client {
  let listing = listingClients.get(client);
  if (!listing) {
    const converter = client.options.loadedDataConverter;
    listing = new Client({
      connection: client.connection,
      namespace: client.options.namespace,
      identity: client.options.identity,
      dataConverter: { ...converter, payloadCodecs: [new ListingCodec(converter.payloadCodecs)] },
    });
    listingClients.set(client, listing);
  }
  return listing;
}
