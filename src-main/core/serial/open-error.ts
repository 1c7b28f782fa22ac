import { CoreError } from '../errors.js';

const UDEV_HINT = 'or install the udev rule in resources/linux/99-capture-desk.rules (see the manual page "Serial permissions on Linux")';

/**
 * serialport's error for a port that would not open, as a sentence a lab user can act on. The
 * general sentence for each kind; explainOpenError (open-failure.ts) makes it specific from what
 * the system shows.
 */
export function openError(path: string, err: Error, platform: NodeJS.Platform = process.platform): CoreError {
  const m = err.message;
  if (/EACCES|Permission denied/i.test(m)) {
    const fix =
      platform === 'linux'
        ? ` Join the dialout group (sudo usermod -aG dialout $USER, then log out and in) ${UDEV_HINT}.`
        : ' Check that no other program holds the port and that you may use it.';
    return new CoreError('PermissionDenied', `Permission denied opening ${path}.${fix}`, { path });
  }
  if (/ENOENT|No such file|cannot open|File not found/i.test(m)) {
    return new CoreError('NotFound', `No serial port at ${path}. Is the board plugged in? Pick it from the device list or check the path.`, { path });
  }
  // "Cannot lock port": another program holds the flock serialport takes on Linux and macOS.
  if (/EBUSY|Resource busy|locked|Cannot lock port|Access denied/i.test(m)) {
    return new CoreError('Busy', `${path} is in use by another program (a serial monitor, the Arduino IDE, another Capture Desk?). Close it and try again.`, { path });
  }
  // A file that opens but takes no baud rate (a regular file, /dev/null): the system's "Inappropriate
  // ioctl for device" names no problem a person can act on.
  if (/ENOTTY|Inappropriate ioctl/i.test(m)) {
    return new CoreError('InvalidArguments', `${path} is not a serial port: it cannot be set to a baud rate. Pick the board's port from the device list ("capture-desk devices serial" on the command line).`, { path, notSerial: true });
  }
  return new CoreError('Unavailable', `Could not open ${path}: ${m}`, { path });
}
