/**
 * Runs every bench/*.bench.ts in name order, each in its own `npx tsx` child
 * process so one bench's heap, JIT state and leftover timers cannot colour
 * the next. Output is passed through as it comes; a failing bench is
 * reported and the rest still run, and the exit code is non-zero if any
 * failed.
 *
 * With `--report`, the `@figure` lines the benches print are collected and
 * docs/performance.md is written from them (bench/performanceReport.ts).
 *
 * Run: npm run bench [-- [--report] name-filter...]   (e.g. `npm run bench -- http`)
 */
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFigures, type Figure } from './figures';
import { renderPerformanceReport } from './performanceReport';

const benchDir = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const report = args.includes('--report');
const filters = args.filter((a) => a !== '--report');
const figures: Figure[] = [];

const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort();

function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    // --expose-gc: benches that report heap per object collect before they read it.
    const child = spawn('npx', ['tsx', '--expose-gc', join(benchDir, file)], { cwd: join(benchDir, '..'), stdio: ['inherit', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.on('error', (e) => {
      console.error(e);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      figures.push(...parseFigures(output));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const failed: string[] = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  const start = performance.now();
  const code = await run(file);
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  if (code === 0) console.log(`--- ${file}: done in ${seconds} s`);
  else {
    console.log(`--- ${file}: FAILED (exit ${code}) after ${seconds} s`);
    failed.push(file);
  }
}
if (!files.length) console.log(`no bench files matched in ${benchDir}`);
if (failed.length) {
  console.log(`\n${failed.length} of ${files.length} benches failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
if (report) {
  const out = join(benchDir, '..', 'docs', 'performance.md');
  const command = ['npm run bench --', ...args].join(' ');
  writeFileSync(out, renderPerformanceReport({ figures, ran: files, failed, command, date: new Date() }));
  console.log(`\nwrote ${out} (${figures.length} figures)`);
}
