// How a printing board ends (SIGTERM, its last row, or the host end gone): its one JSON report line
// goes to stdout only after the PTY took every row written before it, so a test that reads the
// report knows the rows it counts were all sent; with the host end gone (`abrupt`) there is nothing
// left to flush. Then the board exits 0.
export function exitWithReport(out, report, abrupt = false) {
  const done = () => {
    process.stdout.write(JSON.stringify(report()) + '\n');
    process.exit(0);
  };
  if (abrupt) done();
  else out.end(done);
}
