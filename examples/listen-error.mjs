// What an example says when it cannot listen (port 3000 taken by another server, the tour's
// for one): one line and exit code 1, instead of a stack trace or a crash on a null address.
/**
 * @param {NodeJS.ErrnoException & { port?: number }} error
 * @param {{ close(): Promise<void> }} tally
 */
export async function exitOnListenError(error, tally) {
  console.error(
    error.code === "EADDRINUSE"
      ? `Port ${error.port ?? process.env.PORT ?? 3000} is taken by another server: set PORT to another (PORT=0 picks a free one).`
      : `Cannot listen: ${error.message}`,
  );
  await tally.close();
  process.exit(1);
}
