/**
 * The CBOR serializer (`application/cbor`), served only with the alpha gate
 * CBORServingAndStorage; a watch answers `application/cbor-seq`, one item per
 * event. The codec is in cbor/.
 */
import { newBadRequest } from '../../errors';
import { CborDecodeError, decodeCbor, encodeCbor, encodeCborWatchEvent } from './cbor';
import type { Serializer } from './types';

export const CBOR_MEDIA_TYPE = 'application/cbor';
export const CBOR_SEQ_MEDIA_TYPE = 'application/cbor-seq';

export const cborSerializer: Serializer = {
  mediaType: CBOR_MEDIA_TYPE,
  binary: true,
  encode(obj) {
    return encodeCbor(obj);
  },
  decode(body) {
    try {
      return decodeCbor(body);
    } catch (e) {
      if (e instanceof CborDecodeError) throw newBadRequest(e.message);
      throw e;
    }
  },
  encodeWatchEvent(event) {
    const { type, object } = event as { type: string; object: unknown };
    return encodeCborWatchEvent(type, object);
  },
};
