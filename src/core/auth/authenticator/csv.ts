/**
 * RFC 4180 records as Go's encoding/csv reads them with FieldsPerRecord=-1 and
 * TrimLeadingSpace: quoted fields may hold commas, `""` is a quote, blank
 * lines are skipped.
 */
export class CsvError extends Error {}

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let line = 0;
  while (line < lines.length) {
    let current = lines[line++]!;
    if (current.trim() === '') continue;
    const fields: string[] = [];
    let i = 0;
    for (;;) {
      while (current[i] === ' ' || current[i] === '\t') i++;
      let field = '';
      if (current[i] === '"') {
        i++;
        for (;;) {
          if (i >= current.length) {
            // A quoted field spans lines.
            if (line >= lines.length) throw new CsvError(`record on line ${line}: extraneous or missing " in quoted-field`);
            field += '\n';
            current = lines[line++]!;
            i = 0;
            continue;
          }
          const c = current[i]!;
          if (c === '"') {
            if (current[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field += c;
          i++;
        }
        if (i < current.length && current[i] !== ',') throw new CsvError(`parse error on line ${line}, column ${i + 1}: extraneous or missing " in quoted-field`);
      } else {
        const end = current.indexOf(',', i);
        field = end < 0 ? current.slice(i) : current.slice(i, end);
        if (field.includes('"')) throw new CsvError(`parse error on line ${line}, column ${i + field.indexOf('"') + 1}: bare " in non-quoted-field`);
        i = end < 0 ? current.length : end;
      }
      fields.push(field);
      if (i >= current.length) break;
      i++; // the comma
    }
    records.push(fields);
  }
  return records;
}
