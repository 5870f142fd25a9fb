// The shape of the ids this server issues, kept free of Node APIs so request schemas can use it.
const WELL_FORMED_ID = /^[0-9A-Za-z]{20,64}$/;

export const isWellFormedId = (value: string): boolean => WELL_FORMED_ID.test(value);
