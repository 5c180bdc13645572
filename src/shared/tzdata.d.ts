/** The `tzdata` package: the IANA tz database as one object, its zones and links keyed by name. */
declare module 'tzdata/tzdata.js' {
  const tzdata: { zones: Record<string, unknown>; version: string };
  export default tzdata;
}
