import { ApiError } from '../../errors/api-error';
import { arrayParam } from '../../schemas/data-api';

// `timeframe[]` and `filters[]` are repeated query parameters, which withApi's query object (one
// value per name) cannot carry; the Data API routes read them from the URL here. Mux's
// `metric_filters[]` is refused rather than ignored: silently unfiltered numbers would look right.
export const dataArrayParams = (request: Request): { timeframe: string[]; filters: string[] } => {
  const { searchParams } = new URL(request.url);
  if (arrayParam(searchParams, 'metric_filters').length > 0) {
    throw new ApiError('invalid_parameters', 'metric_filters is not supported; filter by dimensions with filters[]');
  }
  return { timeframe: arrayParam(searchParams, 'timeframe'), filters: arrayParam(searchParams, 'filters') };
};
