/** Go's encoding/asn1 messages for malformed CertificationRequest DER, as table cases (bytes in hex). */
import { describe, expect, it } from 'vitest';
import { testCertificateRequestPem } from '../../testing/certificates';
import { certificateRequestStructureError } from './requestStructure';

const hex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
const params = '{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}';
const good = Uint8Array.from(atob(testCertificateRequestPem.replace(/-----[^-]+-----|\s+/g, '')), (c) => c.charCodeAt(0));

describe('CertificationRequest structure', () => {
  const cases: [string, Uint8Array, string | undefined][] = [
    ['a request openssl made', good, undefined],
    ['nothing', hex(''), 'asn1: syntax error: sequence truncated'],
    ['a length cut short', hex('308201'), 'asn1: syntax error: truncated tag or length'],
    ['indefinite length', hex('308000'), 'asn1: syntax error: indefinite length found (not DER)'],
    ['a long-form length under 128', hex('30810100'), 'asn1: structure error: non-minimal length'],
    ['an INTEGER, not a SEQUENCE', hex('020101'), `asn1: structure error: tags don't match (16 vs {class:0 tag:2 length:1 isCompound:false}) ${params} certificateRequest @2`],
    ['content shorter than its length', hex('30050201'), 'asn1: syntax error: data truncated'],
    ['an empty SEQUENCE', hex('3000'), 'asn1: syntax error: sequence truncated'],
    ['request info that is an INTEGER', hex('3003020101'), `asn1: structure error: tags don't match (16 vs {class:0 tag:2 length:1 isCompound:false}) ${params} tbsCertificateRequest @2`],
    ['a version that is not minimal', hex('300630040202000100'), 'asn1: structure error: integer not minimally-encoded'],
    ['bytes after the request', new Uint8Array([...good, 0]), 'asn1: syntax error: trailing data'],
  ];
  it.each(cases)('%s', (_n, der, want) => expect(certificateRequestStructureError(der)).toBe(want));
});
