/** localStorage key holding the manual theme choice ("light" | "dark"); absent = follow the system. */
export const THEME_STORAGE_KEY = "errata-theme";

/**
 * Runs before first paint (inline in <head>) so a remembered theme never flashes the other one.
 * A constant string of our own — nothing from a request or a payload goes into it.
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark"){document.documentElement.setAttribute("data-theme",t);}}catch(e){}})();`;
