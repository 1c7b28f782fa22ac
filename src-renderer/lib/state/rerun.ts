/**
 * Runs `work` one at a time: asked again while it runs, it runs once more after it (however many
 * times it was asked meanwhile), so a burst of change events costs at most two round trips and an
 * older answer never lands after a newer one. `again()`, called from inside `work`, asks for that
 * follow-up itself (the answer it got is not the one wanted any more).
 */
export class Rerun {
  #inFlight: Promise<void> | null = null;
  #again = false;

  constructor(private readonly work: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.#inFlight) {
      this.#again = true;
      return this.#inFlight;
    }
    const loop = async () => {
      do {
        this.#again = false;
        await this.work();
      } while (this.#again);
    };
    this.#inFlight = loop().finally(() => (this.#inFlight = null));
    return this.#inFlight;
  }

  again(): void {
    this.#again = true;
  }
}
