import { runCli } from './cli.js';

// `emutrack export 20260814 | head` closes the pipe early; that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.exitCode = await runCli(process.argv);
