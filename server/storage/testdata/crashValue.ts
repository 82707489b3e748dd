/** The value the durability test's child writes for item i (the test recomputes it to verify). */
export function crashWriterValue(i: number): string {
  return JSON.stringify({ kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(200) } });
}
