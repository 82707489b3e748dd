/**
 * Figures for the generated report (docs/performance.md). A bench prints its
 * human-readable table as before and, for each number the report carries,
 * one line `@figure {json}`; `npm run bench -- --report` collects those lines
 * from every bench it runs and renders the report from them
 * (bench/performanceReport.ts). Running a bench on its own just shows the
 * lines too, so a reader can check what the report would say.
 */

export interface Figure {
  /** Stable identifier, `<bench>.<measure>`; the report's goal table looks figures up by it. */
  id: string;
  /** What was measured, as a table row says it. */
  label: string;
  value: number;
  /** How to read value: `ratio` (a speed ratio, above 1 = kubesim faster unless the label says otherwise), `ops/s`, `ms`, `KiB`, `bytes`... */
  unit: string;
  /** The baseline measured beside it in the same run, in words (with its own figure when there is one). */
  baseline?: string;
}

export const figurePrefix = '@figure ';

export function reportFigure(figure: Figure): void {
  console.log(figurePrefix + JSON.stringify(figure));
}

/** Figures in a bench's output, in order. */
export function parseFigures(output: string): Figure[] {
  const out: Figure[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith(figurePrefix)) continue;
    try {
      out.push(JSON.parse(line.slice(figurePrefix.length)) as Figure);
    } catch {
      // A truncated line (a bench killed mid-write) is left out.
    }
  }
  return out;
}
