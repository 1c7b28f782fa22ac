// Another program holding a serial port, as the Arduino IDE's serial monitor does: it opens the
// port through serialport (which takes an exclusive flock on Linux and macOS) and keeps it open
// until killed. --title names the process (its /proc/PID/comm), so a test can check the name said.
// Prints {"event":"open"} once the port is held.
import { SerialPort } from 'serialport';
import { boardArgs } from './board-args.mjs';

const args = boardArgs({ title: 'port-holder' });
process.title = args.title;
const port = new SerialPort({ path: args.port, baudRate: 115200 }, (err) => {
  if (err) {
    process.stderr.write(`port-holder: ${err.message}\n`);
    process.exit(1);
  }
  process.stdout.write(JSON.stringify({ event: 'open', pid: process.pid }) + '\n');
});
port.on('data', () => {});
setInterval(() => {}, 1 << 30);
