import { Encoder } from 'cbor-x';

/**
 * Standard CBOR (no cbor-x record extension), so any CBOR decoder can read our frames and typed
 * arrays travel as RFC 8746 tags.
 */
export const wireCodec = new Encoder({ useRecords: false, variableMapSize: true });
