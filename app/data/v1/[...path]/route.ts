import { unknownRouteHandlers } from '@/lib/http/unknown-route';

export const dynamic = 'force-dynamic';

// Any other path here – JSON 404 in Mux's shape (after authentication)
export const { GET, POST, PUT, PATCH, DELETE } = unknownRouteHandlers;
