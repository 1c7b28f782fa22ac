/**
 * Examples in the spelling of the OS the core runs on (app.info's platform), which for a lab
 * station reached from a laptop's browser is not the OS of the browser. Null while unknown.
 */
export interface PathExamples {
  folder: string;
  port: string;
}

export function pathExamples(platform: string | null): PathExamples {
  if (platform === 'win32') return { folder: 'C:\\Users\\me\\captures', port: 'COM7' };
  if (platform === 'darwin') return { folder: '/Users/me/captures', port: '/dev/cu.usbserial-0001' };
  if (platform === null) return { folder: '/home/me/captures or C:\\captures', port: '/dev/pts/3, COM7' };
  return { folder: '/home/me/captures', port: '/dev/pts/3, /dev/rfcomm0' };
}
