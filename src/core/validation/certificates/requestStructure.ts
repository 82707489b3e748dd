/**
 * The checks Go's encoding/asn1 makes while unmarshalling a PKCS#10
 * CertificationRequest into crypto/x509's certificateRequest struct, with
 * its messages, since kube reports them verbatim: DER tag and length
 * framing, each field's tag, truncation, and the INTEGER, OBJECT IDENTIFIER
 * and BIT STRING encodings. Offsets (`@n`) are within the enclosing
 * SEQUENCE's content, as Go reports them. Only the outer fields are walked
 * (request info, signature algorithm, signature; version, subject, public
 * key); the attributes and the subject's contents are left to the parser.
 */

interface Header {
  cls: number;
  tag: number;
  compound: boolean;
  length: number;
  /** Where the content starts. */
  offset: number;
}

const syntax = (msg: string) => `asn1: syntax error: ${msg}`;
const structure = (msg: string) => `asn1: structure error: ${msg}`;
const noParams = '{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}';
const optionalParams = noParams.replace('optional:false', 'optional:true');

/** parseTagAndLength. */
function header(b: Uint8Array, at: number): Header | string {
  const b0 = b[at]!;
  let offset = at + 1;
  let tag = b0 & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let shifted = 0; ; shifted++) {
      if (offset >= b.length) return syntax('truncated base 128 integer');
      if (shifted === 4) return structure('base 128 integer too large');
      const c = b[offset++]!;
      tag = tag * 128 + (c & 0x7f);
      if ((c & 0x80) === 0) break;
    }
    if (tag < 0x1f) return syntax('non-minimal tag');
  }
  if (offset >= b.length) return syntax('truncated tag or length');
  let length = b[offset++]!;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0) return syntax('indefinite length found (not DER)');
    length = 0;
    for (let i = 0; i < n; i++) {
      if (offset >= b.length) return syntax('truncated tag or length');
      if (length >= 1 << 23) return structure('length too large');
      length = length * 256 + b[offset++]!;
      if (length === 0) return structure('superfluous leading zeros in length');
    }
    if (length < 0x80) return structure('non-minimal length');
  }
  return { cls: b0 >> 6, tag, compound: (b0 & 0x20) !== 0, length, offset };
}

/** A field of a Go struct: its universal tag, whether constructed, its Go type name, and a content check. */
interface Field {
  tag: number;
  compound: boolean;
  name: string;
  optional?: boolean;
  content?(c: Uint8Array): string | undefined;
  fields?: Field[];
}

/** A RawValue field: any tag, only framed. */
const raw = 'raw' as const;

function integer(c: Uint8Array): string | undefined {
  if (c.length === 0) return syntax('empty integer');
  if (c.length > 1 && ((c[0] === 0 && !(c[1]! & 0x80)) || (c[0] === 0xff && c[1]! & 0x80))) return structure('integer not minimally-encoded');
  if (c.length > 8) return structure('integer too large');
  return undefined;
}

function objectIdentifier(c: Uint8Array): string | undefined {
  if (c.length === 0) return syntax('zero length OBJECT IDENTIFIER');
  if (c[c.length - 1]! & 0x80) return syntax('truncated base 128 integer');
  return undefined;
}

function bitString(c: Uint8Array): string | undefined {
  if (c.length === 0) return syntax('zero length BIT STRING');
  const pad = c[0]!;
  if (pad > 7 || (c.length === 1 && pad > 0) || (c[c.length - 1]! & ((1 << pad) - 1)) !== 0) return syntax('invalid padding bits in BIT STRING');
  return undefined;
}

const algorithmIdentifier: Field = {
  tag: 16, compound: true, name: 'AlgorithmIdentifier',
  fields: [{ tag: 6, compound: false, name: 'ObjectIdentifier', content: objectIdentifier }, { tag: -1, compound: false, name: raw, optional: true }],
};
const bitStringField: Field = { tag: 3, compound: false, name: 'BitString', content: bitString };

const certificateRequest: Field = {
  tag: 16, compound: true, name: 'certificateRequest',
  fields: [
    {
      tag: 16, compound: true, name: 'tbsCertificateRequest',
      fields: [
        { tag: 2, compound: false, name: 'int', content: integer },
        { tag: -1, compound: false, name: raw },
        { tag: 16, compound: true, name: 'publicKeyInfo', fields: [algorithmIdentifier, bitStringField] },
      ],
    },
    algorithmIdentifier,
    bitStringField,
  ],
};

/** parseField: the error at b[at] for field, or where the field ends. */
function parseField(b: Uint8Array, at: number, field: Field): number | string {
  if (at === b.length) return field.optional ? at : syntax('sequence truncated');
  const h = header(b, at);
  if (typeof h === 'string') return h;
  if (field.name !== raw && (h.cls !== 0 || h.tag !== field.tag || h.compound !== field.compound)) {
    if (field.optional) return at;
    return structure(`tags don't match (${field.tag} vs {class:${h.cls} tag:${h.tag} length:${h.length} isCompound:${h.compound}}) ${field.optional ? optionalParams : noParams} ${field.name} @${h.offset}`);
  }
  if (h.offset + h.length > b.length) return syntax('data truncated');
  const content = b.subarray(h.offset, h.offset + h.length);
  const why = field.content?.(content);
  if (why) return why;
  let inner = 0;
  for (const f of field.fields ?? []) {
    const end = parseField(content, inner, f);
    if (typeof end === 'string') return end;
    inner = end;
  }
  return h.offset + h.length;
}

/** x509.ParseCertificateRequest's structural errors for der, or undefined when its structure holds. */
export function certificateRequestStructureError(der: Uint8Array): string | undefined {
  const end = parseField(der, 0, certificateRequest);
  if (typeof end === 'string') return end;
  return end < der.length ? syntax('trailing data') : undefined;
}
