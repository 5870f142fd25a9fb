import { ApiError, UNKNOWN_ROUTE_MESSAGE } from './api-error';
import { withApi } from './with-api';

// Unknown paths under the API prefixes answer like Mux: authentication first, then a JSON 404.
const notFound = withApi(
  async () => {
    throw new ApiError('not_found', UNKNOWN_ROUTE_MESSAGE);
  },
  { access: 'read' },
);

export const unknownRouteHandlers = { GET: notFound, POST: notFound, PUT: notFound, PATCH: notFound, DELETE: notFound };
