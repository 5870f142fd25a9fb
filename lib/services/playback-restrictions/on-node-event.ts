import type { NodeEventHandlers } from '../../coordination/node-event';
import { forgetRestrictionRules } from './restriction-rules-cache';

// A restriction's new rules apply on every node from the next request.
export const playbackRestrictionsOnNodeEvent: NodeEventHandlers = {
  'restriction-changed': ({ restrictionId }) => forgetRestrictionRules(restrictionId),
};
