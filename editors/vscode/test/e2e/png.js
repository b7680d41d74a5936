// The pixels of a PNG screenshot (8-bit RGB or RGBA, not interlaced: what Chromium writes),
// for checks by colour: rgbAt(png, x, y) is [r, g, b]. Node's zlib only, no dependency.
"use strict";

const zlib = require("zlib");

function decode(data) {
  if (data.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let pos = 8, width = 0, height = 0, bpp = 0;
  const idat = [];
  while (pos < data.length) {
    const size = data.readUInt32BE(pos), kind = data.toString("latin1", pos + 4, pos + 8);
    const body = data.subarray(pos + 8, pos + 8 + size);
    if (kind === "IHDR") {
      width = body.readUInt32BE(0); height = body.readUInt32BE(4);
      const depth = body[8], colour = body[9], interlace = body[12];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
        throw new Error(`PNG of depth ${depth}, colour type ${colour}, interlace ${interlace}: not read here`);
      }
      bpp = colour === 2 ? 3 : 4;
    } else if (kind === "IDAT") {
      idat.push(body);
    }
    pos += 12 + size;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat)), stride = width * bpp, pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const kind = raw[y * (stride + 1)], line = y * stride, src = y * (stride + 1) + 1;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? pixels[line + i - bpp] : 0, b = y ? pixels[line - stride + i] : 0;
      const c = i >= bpp && y ? pixels[line - stride + i - bpp] : 0;
      let p = 0;
      if (kind === 1) p = a;
      else if (kind === 2) p = b;
      else if (kind === 3) p = (a + b) >> 1;
      else if (kind === 4) {
        const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[line + i] = (raw[src + i] + p) & 255;
    }
  }
  return { width, height, bpp, pixels };
}

function rgbAt(png, x, y) {
  const i = Math.floor(y) * png.width * png.bpp + Math.floor(x) * png.bpp;
  return [png.pixels[i], png.pixels[i + 1], png.pixels[i + 2]];
}

function hexRgb(colour) {
  return [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
}

function near(got, want, slack = 6) {
  return got.every((v, i) => Math.abs(v - want[i]) <= slack);
}

module.exports = { decode, rgbAt, hexRgb, near };
