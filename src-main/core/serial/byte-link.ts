/** An open serial connection as the core needs it: the hardware seam for ports. */
export interface ByteLink {
  readonly path: string;
  onData(cb: (chunk: Buffer) => void): () => void;
  /** `disconnected` is true when the device went away (unplugged), not when we closed it. */
  onClose(cb: (info: { disconnected: boolean; error: Error | null }) => void): () => void;
  write(data: Buffer | string): Promise<void>;
  setBaudRate(baud: number): Promise<void>;
  close(): Promise<void>;
}

export interface SerialOpener {
  open(path: string, baudRate: number): Promise<ByteLink>;
  /** True if something exists at the path again (for reconnecting to a board that came back). */
  exists(path: string): Promise<boolean>;
}
