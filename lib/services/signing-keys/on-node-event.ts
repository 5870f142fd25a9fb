import type { NodeEventHandlers } from '../../coordination/node-event';
import { forgetSigningPublicKey } from './signing-public-keys';

// A deleted key verifies no token on any node from the next request.
export const signingKeysOnNodeEvent: NodeEventHandlers = {
  'signing-key-deleted': ({ keyId }) => forgetSigningPublicKey(keyId),
};
