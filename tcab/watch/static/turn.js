// The watch page's 3D part: each frame that carries a voxel mesh (a figure
// with data-mesh, set by watch.js) gets a canvas where three.js turns it.
// The .glb is tcab's own writer's shape (one mesh a node: POSITION, COLOR_0,
// NORMAL, indices), read here from its JSON and binary chunks within the
// bytes the listener bounded; nothing is fetched but this page's own URLs.
import * as THREE from "/web3d/three.module.js";

const MAX_VIEWS = 8;  // WebGL contexts are few: the newest frames turn, the rest stay PNGs
const views = new Map();  // figure -> {url, renderer, scene, camera, group}
const COMPONENTS = {SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4};
const ARRAYS = {5121: Uint8Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array};

function parseGlb(buffer) {
  const view = new DataView(buffer);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, jsonLength)));
  const binStart = 20 + jsonLength + 8;
  const accessor = (i) => {
    const a = json.accessors[i];
    const bv = json.bufferViews[a.bufferView];
    const Type = ARRAYS[a.componentType];
    const count = a.count * COMPONENTS[a.type];
    const offset = binStart + (bv.byteOffset || 0) + (a.byteOffset || 0);
    if (offset + count * Type.BYTES_PER_ELEMENT > buffer.byteLength) throw new Error("accessor past the buffer");
    return new Type(buffer.slice(offset, offset + count * Type.BYTES_PER_ELEMENT));
  };
  const group = new THREE.Group();
  for (const mesh of json.meshes || []) {
    for (const prim of mesh.primitives) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.BufferAttribute(accessor(prim.attributes.POSITION), 3));
      if (prim.attributes.NORMAL !== undefined)
        geometry.setAttribute("normal", new THREE.BufferAttribute(accessor(prim.attributes.NORMAL), 3));
      if (prim.attributes.COLOR_0 !== undefined) {
        const colors = accessor(prim.attributes.COLOR_0);
        const size = json.accessors[prim.attributes.COLOR_0].type === "VEC4" ? 4 : 3;
        geometry.setAttribute("color", new THREE.BufferAttribute(colors, size, !(colors instanceof Float32Array)));
      }
      if (prim.indices !== undefined) geometry.setIndex(new THREE.BufferAttribute(accessor(prim.indices), 1));
      if (prim.attributes.NORMAL === undefined) geometry.computeVertexNormals();
      group.add(new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({vertexColors: true})));
    }
  }
  return group;
}

// A group taken out of the scene keeps its buffers and programs on the GPU until
// they are disposed: a run that renders often would fill the GPU's memory.
function dispose(group) {
  group.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    for (const m of [].concat(o.material || [])) m.dispose();
  });
}

function viewFor(fig) {
  let v = views.get(fig);
  if (v) return v;
  if (views.size >= MAX_VIEWS) return null;
  const canvas = document.createElement("canvas");
  canvas.width = 256; canvas.height = 256;
  canvas.className = "turn";
  fig.insertBefore(canvas, fig.querySelector("figcaption"));
  const renderer = new THREE.WebGLRenderer({canvas, antialias: true, preserveDrawingBuffer: true});
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x505050, 2.2));
  const camera = new THREE.PerspectiveCamera(35, 1, 0.1, 10000);
  v = {url: null, renderer, scene, camera, group: null, angle: 0};
  views.set(fig, v);
  return v;
}

async function refresh() {
  for (const fig of document.querySelectorAll("figure[data-mesh]")) {
    const v = viewFor(fig);
    if (!v || v.url === fig.dataset.mesh) continue;
    v.url = fig.dataset.mesh;
    try {
      const got = await fetch(v.url, {cache: "no-store"});
      if (!got.ok) continue;
      const group = parseGlb(await got.arrayBuffer());
      if (v.group) {
        v.scene.remove(v.group);
        dispose(v.group);
      }
      v.group = group;
      v.scene.add(group);
      const box = new THREE.Box3().setFromObject(group);
      v.centre = box.getCenter(new THREE.Vector3());
      v.radius = Math.max(1, box.getSize(new THREE.Vector3()).length());
      fig.dataset.turning = "1";
    } catch (e) {
      fig.dataset.turning = "0";
    }
  }
  setTimeout(refresh, 500);
}

function frame() {
  for (const v of views.values()) {
    if (!v.group) continue;
    v.angle += 0.01;
    const r = v.radius;
    v.camera.position.set(v.centre.x + r * Math.cos(v.angle), v.centre.y + r * 0.7, v.centre.z + r * Math.sin(v.angle));
    v.camera.lookAt(v.centre);
    v.renderer.render(v.scene, v.camera);
  }
  requestAnimationFrame(frame);
}
refresh();
requestAnimationFrame(frame);
