import { ApiError } from '../../errors/api-error';
import type { AssetInput } from '../../schemas/asset-settings';
import { checkInputUrlSyntax, PRIVATE_ADDRESS_REASON, resolvesToPublicAddresses } from '../../ingest/url-policy';

// Request-level URL problems are a 400 at create time. The address is checked again when the
// download connects (DNS can change in between, and redirects can point anywhere).
export const validateInputUrl = async (
  raw: string,
  { allowPrivate, field = 'inputs[0].url' }: { allowPrivate: boolean; field?: string },
): Promise<string> => {
  const checked = checkInputUrlSyntax(raw, { allowPrivate });
  if (!checked.ok) throw new ApiError('invalid_parameters', `${field}: ${checked.reason}`);
  if (!allowPrivate && (await resolvesToPublicAddresses(checked.url.hostname)) === 'private') {
    throw new ApiError('invalid_parameters', `${field}: ${PRIVATE_ADDRESS_REASON}`);
  }
  return checked.url.toString();
};

/**
 * The request's inputs, in order, with every URL checked by the guard above (the video's and each
 * watermark image's) and normalised; `fieldPrefix` names where they sit in the request body.
 */
export const validateInputs = async (
  inputs: AssetInput[],
  { allowPrivate, fieldPrefix = '' }: { allowPrivate: boolean; fieldPrefix?: string },
): Promise<AssetInput[]> => {
  const checked: AssetInput[] = [];
  for (const [index, input] of inputs.entries()) {
    const url = input.url && (await validateInputUrl(input.url, { allowPrivate, field: `${fieldPrefix}inputs[${index}].url` }));
    checked.push({ ...input, ...(url && { url }) });
  }
  return checked;
};

/**
 * A URL this server sends media to (a simulcast target's rtmp, rtmps or srt URL, its form checked
 * by its schema) under the input URLs' address policy. Unlike a download, the restream's own
 * connection is not checked again, so this create-time check is the only one.
 */
export const validateDestinationUrl = async (raw: string, { allowPrivate, field }: { allowPrivate: boolean; field: string }): Promise<void> => {
  // The WHATWG parser canonicalises the hosts of http(s) URLs but not of rtmp or srt ones
  // (rtmp://127.1/app keeps "127.1", which no address check recognises), so the host is judged as
  // an http URL's would be.
  await validateInputUrl(`http://${new URL(raw).host}/`, { allowPrivate, field });
};
