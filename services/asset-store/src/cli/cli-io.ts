/** Where the CLI writes, what it reads from its environment, and how it is stopped. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where `get -o -` writes the bytes (stdout). */
  binaryOut: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal: progress bars are drawn only then. */
  isTTY: boolean;
  /** Where progress bars are drawn (stderr). */
  progressStream: NodeJS.WritableStream;
  /** First Ctrl-C (or SIGTERM): finish what is cheap to finish, start nothing new. */
  stop: AbortSignal;
  /** Second Ctrl-C: give up what is in flight. */
  abort: AbortSignal;
}
