/**
 * Units of the shipped sensors' channels, in Zephyr's sensor API units (what the firmware reads and
 * forwards): acceleration in m/s², angular rate in rad/s, temperature in °C, humidity in %RH,
 * pressure in kPa. Known only for the sensor types the sample defines (1 BMI270, 2 ADXL367,
 * 3 BME688); a channel name the firmware does not ship gets none.
 */
const KNOWN_TYPES = new Set([1, 2, 3]);
const BY_NAME: Record<string, string> = {
  ax: 'm/s2', ay: 'm/s2', az: 'm/s2', gx: 'rad/s', gy: 'rad/s', gz: 'rad/s', temp: 'degC', hum: '%RH', pres: 'kPa',
};

export const SENSOR_TYPE_NAMES: Record<number, string> = { 1: 'BMI270', 2: 'ADXL367', 3: 'BME688' };

export function nordicUnits(sensorType: number | null, names: readonly string[]): string[] | null {
  if (sensorType === null || !KNOWN_TYPES.has(sensorType)) return null;
  return names.map((n) => BY_NAME[n] ?? 'N/A');
}
