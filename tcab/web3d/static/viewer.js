// tcab's 3D viewer: turns a run's model (the .glb carried in the page's
// #model data block), plays each animation by name, poses each caller joint
// with a slider, and can spin it on a turntable. Fetches nothing: three.js
// comes from the app's /web3d/ routes through the page's import map.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const meta = JSON.parse(document.getElementById('model').textContent);
const canvas = document.getElementById('view');
const controls = document.getElementById('controls');
const status = document.getElementById('status');

const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f4f2);
scene.add(new THREE.HemisphereLight(0xffffff, 0x505050, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(1, 2, 1.5);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(35, 1, 0.1, 10000);
const orbit = new OrbitControls(camera, canvas);
const clock = new THREE.Clock();
let mixer = null;
let turntable = false;
const state = { ready: false, playing: null, animations: [], joints: [], posed: {} };
window.tcabViewer = state; // read by the tests

function resize() {
  const w = canvas.clientWidth || 640;
  const h = canvas.clientHeight || 420;
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}

function button(text, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  controls.appendChild(b);
  return b;
}

function bytes(b64) {
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out.buffer;
}

new GLTFLoader().parse(bytes(meta.glb), '', (gltf) => {
  const model = gltf.scene;
  scene.add(model);
  const box = new THREE.Box3().setFromObject(model);
  const centre = box.getCenter(new THREE.Vector3());
  const size = Math.max(1, box.getSize(new THREE.Vector3()).length());
  camera.position.copy(centre).add(new THREE.Vector3(size, size * 0.8, size));
  orbit.target.copy(centre);
  orbit.update();
  status.textContent = '';
  mixer = new THREE.AnimationMixer(model);
  const declared = Object.fromEntries((meta.animations || []).map((a) => [a.name, a]));
  for (const clip of gltf.animations) {
    state.animations.push(clip.name);
    button(`play ${clip.name}`, () => play(clip, declared[clip.name]));
  }
  button('stop', () => { mixer.stopAllAction(); state.playing = null; });
  button('turntable', () => { turntable = !turntable; orbit.autoRotate = turntable; });
  for (const joint of meta.joints || []) {
    const node = joint.tagged ? tagged(model, joint.name) : model.getObjectByName(joint.part);
    if (!node) continue;
    if (joint.tagged) node.userData.tcabRest = { q: node.quaternion.clone(), p: node.position.clone() };
    const label = document.createElement('label');
    label.textContent = `${joint.name} `;
    const slider = document.createElement('input');
    Object.assign(slider, { type: 'range', min: joint.min, max: joint.max, step: (joint.max - joint.min) / 200 || 0.01,
                            value: joint.rest });
    slider.addEventListener('input', () => pose(node, joint, Number(slider.value)));
    label.appendChild(slider);
    controls.appendChild(label);
    state.joints.push(joint.name);
  }
  // autoplay what the model declares self-playing
  const auto = gltf.animations.find((c) => declared[c.name] && declared[c.name].auto_play);
  if (auto) play(auto, declared[auto.name]);
  state.ready = true;
}, (error) => { status.textContent = `cannot load the model: ${error.message || error}`; state.error = String(error); });

function play(clip, declared) {
  mixer.stopAllAction();
  const action = mixer.clipAction(clip);
  const loop = declared ? declared.loop : true;
  action.setLoop(loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
  action.clampWhenFinished = !loop; // a one-shot holds its final pose
  action.reset().play();
  state.playing = clip.name;
}

// A Blender character's caller joint: the node build.py tagged with
// extras.tcab_joint (GLTFLoader keeps extras as userData; Blender may
// export the property as a JSON string).
function tagged(model, name) {
  let found = null;
  model.traverse((node) => {
    let tag = node.userData && node.userData.tcab_joint;
    if (typeof tag === 'string') {
      try { tag = JSON.parse(tag); } catch (e) { tag = null; }
    }
    if (!found && tag && tag.name === name) found = node;
  });
  return found;
}

// A caller joint turns its part about the joint's pivot (or slides it along
// its axis); a tagged bone turns (or slides) from its rest transform, in its
// own frame.
function pose(node, joint, value) {
  const axis = new THREE.Vector3(joint.axis === 'x' ? 1 : 0, joint.axis === 'y' ? 1 : 0, joint.axis === 'z' ? 1 : 0);
  const rest = node.userData.tcabRest;
  if (rest) {
    if (joint.kind === 'translation') node.position.copy(rest.p).add(axis.multiplyScalar(value));
    else node.quaternion.copy(rest.q).multiply(new THREE.Quaternion().setFromAxisAngle(axis, value));
    state.posed[joint.name] = { value, turned: node.quaternion.angleTo(rest.q), moved: node.position.distanceTo(rest.p) };
    return;
  }
  if (joint.kind === 'translation') {
    node.position.copy(axis.multiplyScalar(value));
    return;
  }
  const q = new THREE.Quaternion().setFromAxisAngle(axis, value);
  const pivot = new THREE.Vector3(...joint.pivot);
  node.quaternion.copy(q);
  node.position.copy(pivot.clone().sub(pivot.clone().applyQuaternion(q)));
}

resize();
window.addEventListener('resize', resize);
renderer.setAnimationLoop(() => {
  const dt = clock.getDelta();
  if (mixer) mixer.update(dt);
  orbit.update();
  renderer.render(scene, camera);
});
