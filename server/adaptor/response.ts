/**
 * The responses the host writes in one writeHead and end: the core's
 * LightResponse (complete bodies with headers as a plain record, from its
 * response writer). Anything else is a Fetch Response the host streams.
 */
import { LightResponse, type LightParts } from '../../src/core/http/lightResponse';

export type { LightParts };

/** The response as the core gave it, when it is light and unread; undefined for a Response to stream. */
export function lightParts(response: Response): LightParts | undefined {
  return LightResponse.lightParts(response);
}
