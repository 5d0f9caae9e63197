/**
 * Lets at most `max` tasks run at once; the rest wait in arrival order. Used to keep a process
 * from opening more connections to a store than the store accepts (Virtuoso refuses those past
 * its `MaxClientConnections` instead of queueing them).
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}
