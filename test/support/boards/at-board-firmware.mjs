// The AT server of the platform's official firmware, simulated: echo of printable bytes, "\r\n"
// on Enter, the command's output, then the "> " prompt (firmware-sdk at-server/ei_at_server.cpp).
import { createHash } from 'node:crypto';
import { configText } from './at-board-config.mjs';
import { makeSample, SENSORS } from './at-board-sample.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Firmware {
  /**
   * @param {{ write(text: string): void, drain(): Promise<void>, setBaud(b: number): Promise<void>,
   *           emit(ev: object): void }} io
   * @param {{ version: string, storage: 'buffer'|'file'|'upload', transferBaud: number,
   *           deviceId: string, deviceType: string, timeScale: number, inferencing: boolean,
   *           truncateSample?: boolean }} o
   */
  constructor(io, o) {
    this.io = io;
    this.o = o;
    const [major, minor] = o.version.split('.').map(Number);
    this.minor = major > 1 ? 99 : minor;
    this.legacy = this.minor < 4; // Mbed REPL layout up to AT 1.3
    this.s = {
      label: 'idle', intervalMs: 16, lengthMs: 1000, hmacKey: '', apiKey: '',
      host: 'ingestion.example.test', path: '/api/training/data', mgmtUrl: 'wss://remote-mgmt.example.test',
    };
    this.files = new Map();
    this.buffer = null;
    this.seq = 0;
    this.line = '';
    this.queue = [];
    this.busy = false;
    this.inference = null;
  }

  boot() {
    this.out('Hello from the simulated AT board.\r\n');
    if (this.o.inferencing) this.startInference();
    // The Mbed REPL draws its first prompt after clearing the line and returning the cursor.
    else this.out(this.legacy ? '\x1b[2K\r> ' : '> ');
  }

  prompt() {
    this.out('> ');
  }

  out(text) {
    this.io.write(text);
  }

  /** Bytes from the host, handled one at a time in order, like a UART receive loop. */
  receive(buf) {
    for (const b of buf) this.queue.push(b);
    void this.pump();
  }

  async pump() {
    if (this.busy) return;
    this.busy = true;
    while (this.queue.length) await this.key(this.queue.shift());
    this.busy = false;
  }

  async key(b) {
    if (this.inference) {
      // ei_user_invoke_stop_lib: only a 'b' stops a running inference; other input is dropped.
      if (b === 0x62) this.stopInference();
      return;
    }
    if (b === 0x0d) {
      this.out('\r\n');
      const line = this.line;
      this.line = '';
      await this.execute(line);
      this.prompt();
    } else if (b >= 0x20 && b <= 0x7e) {
      this.line += String.fromCharCode(b);
      this.out(String.fromCharCode(b));
    }
  }

  startInference() {
    let n = 0;
    this.out('Starting inferencing, press \'b\' to break\r\n');
    this.inference = setInterval(() => {
      this.out(`Predictions (DSP: 2 ms., Classification: 1 ms., Anomaly: 0 ms.): #${n++}\r\n    idle: 0.97\r\n    wave: 0.03\r\n`);
    }, 20);
  }

  stopInference() {
    clearInterval(this.inference);
    this.inference = null;
    this.out('Inferencing stopped by user\r\n');
    this.prompt();
  }

  async execute(raw) {
    const cmd = raw.trimEnd();
    this.io.emit({ event: 'command', verb: cmd.split('=')[0] });
    if (!cmd.startsWith('AT+')) return this.out(`Not a valid AT command (${cmd})\n`);
    const body = cmd.slice(3);
    const eq = body.indexOf('=');
    const key = body.endsWith('?') ? body : eq >= 0 ? body.slice(0, eq + 1) : body;
    const args = eq >= 0 ? body.slice(eq + 1).split(',') : [];
    const handler = this.handlers()[key];
    if (!handler) return this.out(`Not a valid AT command (${cmd})\n`);
    await handler(args);
  }

  handlers() {
    return {
      'CONFIG?': () => this.out(configText(this)),
      'SAMPLESETTINGS=': (a) => this.setSampleSettings(a),
      'UPLOADSETTINGS=': (a) => {
        if (a.length < 2) return this.out('Too few arguments! Required: 2\n');
        [this.s.apiKey, this.s.path] = a;
        this.out('OK\n');
      },
      'UPLOADHOST=': (a) => { this.s.host = a[0] ?? ''; this.out('OK\n'); },
      'MGMTSETTINGS=': (a) => { this.s.mgmtUrl = a[0] ?? ''; this.out('OK\n'); },
      'SAMPLESTART=': (a) => this.sampleStart(a[0]),
      'READBUFFER=': (a) => this.readBuffer(a),
      'READFILE=': (a) => this.readFile(a),
      'UNLINKFILE=': (a) => this.unlink(a[0]),
      LISTFILES: () => this.out([...this.files.keys()].map((f) => `${f}\n`).join('')),
    };
  }

  setSampleSettings(a) {
    if (a.length < 3) return this.out('Missing argument! Required: LABEL,INTERVAL_MS,LENGTH_MS,[HMAC_KEY]\r\n');
    this.s.label = a[0];
    this.s.intervalMs = Number.parseFloat(a[1]);
    this.s.lengthMs = Number.parseInt(a[2], 10);
    if (a.length >= 4) this.s.hmacKey = a[3];
    this.out('OK\r\n');
  }

  async sampleStart(name) {
    const sensor = SENSORS.find((x) => x.name === name);
    if (!sensor) return this.out(`ERR: Failed to find sensor '${name}' in the sensor list\n`);
    const s = this.s;
    const fileName = this.o.storage === 'buffer' ? `/fs/${s.label}` : `/fs/${s.label}.${this.seq}`;
    this.out('Sampling settings:\n');
    this.out(`\tInterval: ${this.legacy ? s.intervalMs.toFixed(2) : s.intervalMs.toFixed(5)} ms.\n`);
    this.out(`\tLength: ${s.lengthMs} ms.\n\tName: ${s.label}\n\tHMAC Key: ${s.hmacKey}\n\tFile name: ${fileName}\n`);
    this.out('Starting in 2000 ms... (or until all flash was erased)\n');
    await sleep(2000 * this.o.timeScale);
    this.out('Sampling...\n');
    await sleep(s.lengthMs * this.o.timeScale);
    const sample = makeSample({ ...this.o, intervalMs: s.intervalMs, lengthMs: s.lengthMs, hmacKey: s.hmacKey, sensor, seq: this.seq++ });
    if (this.o.truncateSample) {
      sample.bytes = sample.bytes.subarray(0, Math.floor(sample.bytes.length / 2));
      sample.sha256 = createHash('sha256').update(sample.bytes).digest('hex');
    }
    this.io.emit({ event: 'sample', fileName, storage: this.o.storage, length: sample.bytes.length, sha256: sample.sha256, base64: sample.bytes.toString('base64') });
    if (this.o.storage === 'buffer') {
      this.buffer = sample.bytes;
      this.out(`Done sampling, total bytes collected: ${sample.rows * sensor.axes.length * 4}\n`);
      this.out('[1/1] Uploading file to Edge Impulse...\n');
      this.out(`Not uploading file, not connected to WiFi. Used buffer, from=0, to=${sample.bytes.length}.\n`);
      this.out('[1/1] Uploading file to Edge Impulse OK (took 0 ms.)\n');
    } else {
      this.out(`Done sampling\nTotal samples collected: ${sample.rows}\n`);
      if (this.o.storage === 'file') {
        this.files.set(fileName, sample.bytes);
        this.out('Not uploading file, not connected to WiFi\n');
      } else {
        this.out(`Uploading... '${fileName}' to ${s.host}${s.path}...\n`);
      }
    }
    this.out('OK\n');
  }

  async readBuffer(a) {
    if (a.length < 2) return this.out('Missing argument! Required: START,LENGTH,[USEMAXRATE]\r\n');
    // START,LENGTH as in firmware-sdk ei_at_command_set.h.
    const start = Number.parseInt(a[0], 10);
    const length = Number.parseInt(a[1], 10);
    if (!this.buffer || !(start >= 0) || !(length >= 0) || start + length > this.buffer.length) {
      return this.out('Failed to read from buffer\r\n');
    }
    await this.transfer(this.buffer.subarray(start, start + length), 'base64', a[2]);
  }

  async readFile(a) {
    const bytes = this.files.get(a[0]);
    if (!bytes) return this.out(`File '${a[0]}' does not exist\n`);
    await this.transfer(bytes, this.minor < 2 ? 'hex' : 'base64', a[1]);
  }

  /** The data, in 513-byte pieces as read_encode_send_sample_buffer does, optionally at the fast rate. */
  async transfer(bytes, encoding, rateArg) {
    const fast = this.minor >= 6 && rateArg?.[0] === 'y' && this.o.transferBaud !== 115200;
    if (fast) await this.switchBaud(this.o.transferBaud, 'OK\r\n');
    for (let i = 0; i < bytes.length; i += 513) this.out(bytes.subarray(i, i + 513).toString(encoding));
    if (fast) await this.switchBaud(115200, '\r\nOK\r\n');
    this.out('\r\n');
  }

  async switchBaud(baud, before) {
    this.out(before);
    await this.io.drain();
    await sleep(100); // as the firmware does, so the host can follow
    await this.io.setBaud(baud);
    this.io.emit({ event: 'baud', baudRate: baud });
  }

  unlink(name) {
    const deleted = this.o.storage === 'file' ? this.files.delete(name) : this.buffer !== null;
    if (this.o.storage === 'buffer') this.buffer = null;
    this.io.emit({ event: 'unlink', fileName: name, deleted, files: this.held() });
    if (this.o.storage === 'file' && !deleted) return this.out(`File '${name}' could not be unlinked\n`);
    this.out('\n');
  }

  /** The samples the board still holds (its files, or its RAM buffer). */
  held() {
    return this.o.storage === 'buffer' ? (this.buffer ? [`/fs/${this.s.label}`] : []) : [...this.files.keys()];
  }
}
