/**
 * `kubesim check <files>`: the removed-API check on manifest files, the way
 * users run one before an upgrade. Prints one line per object (removed, in
 * which release, what to use instead), the field changes of each removed
 * object, and with --convert the manifests rewritten to the replacement
 * versions where that is mechanical. Exit code 3 when a removed API was
 * found (as pluto signals it), 1 on usage or read errors, else 0.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { registryBundle } from '../src/core/registry/generated';
import { checkManifests, parseManifestObjects, type ObjectReport } from '../src/core/upgrade/removedApis';

export interface CheckOutput {
  write(text: string): void;
}

const usage = `usage: kubesim check [--target-version 1.36] [--convert] [-o text|json] <file|directory|-> ...

Reports, for every object in the manifests, whether its apiVersion is removed
by the target Kubernetes release (this server's, ${registryBundle.kubernetesVersion}, by default),
in which release, what to use instead and which fields change.
A directory is searched recursively for .yaml, .yml and .json files.
  --convert   print the manifests converted to the replacement versions instead
  -o json     print the report as JSON
`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('').trimEnd()).join('\n');
}

function objectName(o: ObjectReport): string {
  return `${o.namespace ? `${o.namespace}/` : ''}${o.name ?? '<unnamed>'}`;
}

export async function runCheckCommand(args: readonly string[], out: CheckOutput = { write: (t) => process.stdout.write(t) }, stdin: () => Promise<string> = readStdin): Promise<number> {
  let target = registryBundle.kubernetesVersion;
  let convert = false;
  let output = 'text';
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith('--') ? (a.split(/=(.*)/s, 2) as [string, string | undefined]) : [a, undefined];
    const value = () => inline ?? args[++i];
    if (flag === '--target-version') target = value() ?? '';
    else if (flag === '--convert') convert = true;
    else if (flag === '-o' || flag === '--output') output = value() ?? '';
    else if (flag === '-h' || flag === '--help') {
      out.write(usage);
      return 0;
    } else if (a.startsWith('-') && a !== '-') {
      out.write(`error: unknown flag: ${a}\n${usage}`);
      return 1;
    } else files.push(a);
  }
  if (!files.length || !/^v?\d+\.\d+(\.\d+)?$/.test(target) || (output !== 'text' && output !== 'json')) {
    out.write(usage);
    return 1;
  }
  const reports: { file: string; objects: ObjectReport[]; originals: Record<string, unknown>[] }[] = [];
  let expanded: string[];
  try {
    expanded = (await Promise.all(files.map(manifestFiles))).flat();
  } catch (e) {
    out.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  for (const file of expanded) {
    let text: string;
    try {
      text = file === '-' ? await stdin() : await readFile(file, 'utf8');
    } catch (e) {
      out.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
    const result = checkManifests(text, target);
    for (const err of result.errors) out.write(`error: ${file}: ${err}\n`);
    if (result.errors.length) return 1;
    reports.push({ file, objects: result.objects, originals: parseManifestObjects(text).objects });
  }
  const found = reports.some((r) => r.objects.some((o) => o.removed));

  if (convert) {
    const docs: string[] = [];
    for (const r of reports) {
      r.objects.forEach((o, i) => {
        if (o.changes && !o.converted) out.write(`# ${r.file}: ${o.kind} ${objectName(o)} (${o.apiVersion}) left as it is: ${o.conversionNote}\n`);
        docs.push(stringify(o.converted ?? r.originals[i]));
      });
    }
    out.write(docs.join('---\n'));
    return found ? 3 : 0;
  }
  if (output === 'json') {
    out.write(`${JSON.stringify({ targetVersion: target.replace(/^v/, ''), files: reports.map(({ file, objects }) => ({ file, objects })) }, null, 2)}\n`);
    return found ? 3 : 0;
  }
  const rows = [['FILE', 'KIND', 'NAME', 'VERSION', 'DEPRECATED-IN', 'REMOVED', 'REMOVED-IN', 'REPLACEMENT']];
  for (const r of reports) {
    for (const o of r.objects) rows.push([r.file, o.kind, objectName(o), o.apiVersion, o.deprecatedIn ?? '-', String(o.removed), o.removedIn ?? '-', o.replacement ?? (o.removedIn ? '(none)' : '-')]);
  }
  out.write(`${table(rows)}\n`);
  for (const r of reports) {
    for (const o of r.objects.filter((x) => x.deprecatedIn && !x.changes)) {
      out.write(`\n${r.file}: ${o.kind} ${objectName(o)}: ${o.apiVersion} is deprecated since ${o.deprecatedIn}${o.removedIn ? ` and goes in ${o.removedIn}` : ''}${o.replacement ? `; use ${o.replacement}` : ''}\n`);
    }
    for (const o of r.objects.filter((x) => x.changes)) {
      out.write(`\n${r.file}: ${o.kind} ${objectName(o)}: ${o.apiVersion} ${o.removed ? 'was removed' : 'will be removed'} in ${o.removedIn}${o.replacement ? `; use ${o.replacement} (served since ${o.replacementSince})` : ''}\n`);
      for (const c of o.changes ?? []) out.write(`  - ${c}\n`);
      out.write(o.converted ? '  conversion: mechanical (kubesim check --convert)\n' : `  conversion: ${o.conversionNote}\n`);
    }
  }
  return found ? 3 : 0;
}

/** The manifest files a path names: itself, or a directory's .yaml, .yml and .json files, recursively and sorted. */
async function manifestFiles(path: string): Promise<string[]> {
  if (path === '-' || !(await stat(path)).isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const e of entries) {
    const full = join(path, e.name);
    if (e.isDirectory()) out.push(...(await manifestFiles(full)));
    else if (/\.(ya?ml|json)$/.test(e.name)) out.push(full);
  }
  return out;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
