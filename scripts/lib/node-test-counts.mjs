// A node:test reporter that writes the counts of the run's tests (suites not counted) and the time
// each file's top-level tests took, as JSON, for scripts/test.mjs's closing lines; the spec reporter
// still prints the run itself.
export default async function* countTests(source) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const fileMs = {};
  for await (const event of source) {
    if ((event.type === "test:pass" || event.type === "test:fail") && event.data.nesting === 0 && event.data.file) {
      fileMs[event.data.file] = (fileMs[event.data.file] ?? 0) + (event.data.details?.duration_ms ?? 0);
    }
    if (event.data?.details?.type === "suite") {
      // A suite that failed before its tests ran (its hook threw) counts as one failure.
      if (event.type === "test:fail" && event.data.details.error?.failureType === "hookFailed") counts.failed += 1;
      continue;
    }
    if (event.type === "test:pass") counts[event.data.skip || event.data.todo ? "skipped" : "passed"] += 1;
    if (event.type === "test:fail") counts.failed += 1;
  }
  yield `${JSON.stringify({ ...counts, fileMs })}\n`;
}
