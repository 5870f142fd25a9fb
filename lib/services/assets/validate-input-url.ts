import { ApiError } from '../../errors/api-error';
import { checkInputUrlSyntax, PRIVATE_ADDRESS_REASON, resolvesToPublicAddresses } from '../../ingest/url-policy';

// Request-level URL problems are a 400 at create time. The address is checked again when the
// download connects (DNS can change in between, and redirects can point anywhere).
export const validateInputUrl = async (raw: string, { allowPrivate }: { allowPrivate: boolean }): Promise<string> => {
  const checked = checkInputUrlSyntax(raw, { allowPrivate });
  if (!checked.ok) throw new ApiError('invalid_parameters', `inputs[0].url: ${checked.reason}`);
  if (!allowPrivate && (await resolvesToPublicAddresses(checked.url.hostname)) === 'private') {
    throw new ApiError('invalid_parameters', `inputs[0].url: ${PRIVATE_ADDRESS_REASON}`);
  }
  return checked.url.toString();
};
