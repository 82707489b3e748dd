/**
 * The lessons: the scenarios shipped in scenarios/ at the repository root,
 * bundled at build time (each its own chunk, fetched when opened) and kept
 * true by CI (library.test.ts plays every one headless).
 */
const files = import.meta.glob<string>('/scenarios/*.yaml', { query: '?raw', import: 'default' });

export interface Lesson {
  /** The file name without .yaml, which is also the scenario's name. */
  name: string;
  load(): Promise<string>;
}

export const LESSONS: readonly Lesson[] = Object.entries(files)
  .map(([path, load]) => ({ name: path.slice(path.lastIndexOf('/') + 1).replace(/\.yaml$/, ''), load }))
  .sort((a, b) => a.name.localeCompare(b.name));
