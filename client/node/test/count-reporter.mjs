// Prints "N passed, N failed" (test cases, suites not counted) at the end,
// the line scripts/test.sh adds to its totals.
export default async function* countReporter(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.data?.details?.type === "suite") continue;
    if (event.type === "test:pass" && !event.data.skip) passed++;
    if (event.type === "test:fail") failed++;
  }
  yield `${passed} passed, ${failed} failed\n`;
}
