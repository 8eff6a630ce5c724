// Reference dump of an SDFormat model with libsdformat 12, for test/test_sdf.py.
//
// Usage: sdformat_dump FILE [MODEL_NAME] [MODEL_PATH ...]
// Prints one JSON object on stdout: {"ok": bool, "errors": [...], "model": ...}.  Every pose is
// expressed in the frame of the selected top-level model (nested models are composed through
// their own SemanticPose), joint axes in the same frame, inertia about the COM in link axes.
// Scoped names use "::" like libsdformat's own flattening.
//
// Build: g++ -std=c++17 sdformat_dump.cpp $(pkg-config --cflags --libs sdformat12) -o sdformat_dump

#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <ignition/math/Pose3.hh>
#include <sdf/sdf.hh>

using ignition::math::Pose3d;
using ignition::math::Vector3d;

namespace {

std::string esc(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {  // as JSON escapes: a name may hold any character
      static const char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[(c >> 4) & 0xf];
      out += hex[c & 0xf];
    } else {
      out += c;
    }
  }
  return "\"" + out + "\"";
}

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "1e308" : "-1e308";
  if (std::isnan(v)) return "null";
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

std::string vec(const Vector3d &v) { return "[" + num(v.X()) + "," + num(v.Y()) + "," + num(v.Z()) + "]"; }

// position and quaternion (w, x, y, z)
std::string pose(const Pose3d &p) {
  const auto &q = p.Rot();
  return "{\"xyz\":" + vec(p.Pos()) + ",\"wxyz\":[" + num(q.W()) + "," + num(q.X()) + "," + num(q.Y()) + "," +
         num(q.Z()) + "]}";
}

std::string errs(const sdf::Errors &errors) {
  std::string out = "[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i) out += ",";
    out += esc(errors[i].Message());
  }
  return out + "]";
}

std::string scoped(const std::string &prefix, const std::string &name) {
  if (name == "world" || prefix.empty()) return name;
  return prefix + "::" + name;
}

const char *jointType(sdf::JointType t) {
  switch (t) {
    case sdf::JointType::BALL: return "ball";
    case sdf::JointType::CONTINUOUS: return "continuous";
    case sdf::JointType::FIXED: return "fixed";
    case sdf::JointType::GEARBOX: return "gearbox";
    case sdf::JointType::PRISMATIC: return "prismatic";
    case sdf::JointType::REVOLUTE: return "revolute";
    case sdf::JointType::REVOLUTE2: return "revolute2";
    case sdf::JointType::SCREW: return "screw";
    case sdf::JointType::UNIVERSAL: return "universal";
    default: return "invalid";
  }
}

struct Out {
  std::vector<std::string> links, joints, frames, sensors, models, problems;
};

void sensorJson(const sdf::Sensor *s, const std::string &prefix, const std::string &owner, const Pose3d &topHScope,
                Out &out) {
  Pose3d p;
  auto e = s->SemanticPose().Resolve(p, "__model__");
  if (!e.empty()) out.problems.push_back("sensor " + s->Name() + ": " + e[0].Message());
  std::string j = "{\"name\":" + esc(scoped(prefix, s->Name())) + ",\"type\":" + esc(s->TypeStr()) +
                  ",\"owner\":" + esc(owner) + ",\"pose\":" + pose(topHScope * p);
  if (const auto *ft = s->ForceTorqueSensor()) {
    const char *frame = ft->Frame() == sdf::ForceTorqueFrame::PARENT  ? "parent"
                        : ft->Frame() == sdf::ForceTorqueFrame::CHILD ? "child"
                                                                       : "sensor";
    const char *dir =
        ft->MeasureDirection() == sdf::ForceTorqueMeasureDirection::PARENT_TO_CHILD ? "parent_to_child" : "child_to_parent";
    j += ",\"ft_frame\":" + esc(frame) + ",\"ft_direction\":" + esc(dir);
  }
  out.sensors.push_back(j + "}");
}

void dumpModel(const sdf::Model *m, const std::string &prefix, const Pose3d &topHScope, Out &out) {
  for (uint64_t i = 0; i < m->LinkCount(); ++i) {
    const auto *l = m->LinkByIndex(i);
    Pose3d p;
    auto e = l->SemanticPose().Resolve(p, "__model__");
    if (!e.empty()) out.problems.push_back("link " + l->Name() + ": " + e[0].Message());
    const auto &in = l->Inertial();
    const Pose3d ip = in.Pose();  // in the link frame
    const auto r = ignition::math::Matrix3d(ip.Rot());
    const auto moi = r * in.MassMatrix().Moi() * r.Transposed();
    std::string inertia = "[";
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) inertia += (a || b ? "," : "") + num(moi(a, b));
    inertia += "]";
    // each visual's and collision's pose in the top model frame, resolved as libsdformat resolves relative_to
    std::string shapes = "{";
    auto shape = [&](const std::string &key, const sdf::SemanticPose &sp) {
      Pose3d q;
      auto se = sp.Resolve(q, "__model__");
      if (!se.empty()) out.problems.push_back(key + ": " + se[0].Message());
      shapes += (shapes.size() > 1 ? "," : "") + esc(key) + ":" + pose(topHScope * q);
    };
    for (uint64_t v = 0; v < l->VisualCount(); ++v)
      shape("visual " + l->VisualByIndex(v)->Name(), l->VisualByIndex(v)->SemanticPose());
    for (uint64_t c = 0; c < l->CollisionCount(); ++c)
      shape("collision " + l->CollisionByIndex(c)->Name(), l->CollisionByIndex(c)->SemanticPose());
    shapes += "}";
    out.links.push_back(esc(scoped(prefix, l->Name())) + ":{\"pose\":" + pose(topHScope * p) +
                        ",\"mass\":" + num(in.MassMatrix().Mass()) + ",\"com\":" + vec(ip.Pos()) +
                        ",\"inertia\":" + inertia + ",\"visuals\":" + std::to_string(l->VisualCount()) +
                        ",\"collisions\":" + std::to_string(l->CollisionCount()) + ",\"shapes\":" + shapes + "}");
    for (uint64_t s = 0; s < l->SensorCount(); ++s)
      sensorJson(l->SensorByIndex(s), prefix, scoped(prefix, l->Name()), topHScope, out);
  }
  for (uint64_t i = 0; i < m->JointCount(); ++i) {
    const auto *j = m->JointByIndex(i);
    std::string parent, child;
    j->ResolveParentLink(parent);
    j->ResolveChildLink(child);
    Pose3d p;
    auto e = j->SemanticPose().Resolve(p, "__model__");
    if (!e.empty()) out.problems.push_back("joint " + j->Name() + ": " + e[0].Message());
    std::string js = esc(scoped(prefix, j->Name())) + ":{\"type\":" + esc(jointType(j->Type())) +
                     ",\"parent\":" + esc(scoped(prefix, parent)) + ",\"child\":" + esc(scoped(prefix, child)) +
                     ",\"pose\":" + pose(topHScope * p);
    for (unsigned int a = 0; a < 2; ++a) {
      const auto *ax = j->Axis(a);
      if (!ax) continue;
      Vector3d xyz;
      auto ae = ax->ResolveXyz(xyz, "__model__");
      if (!ae.empty()) out.problems.push_back("joint axis " + j->Name() + ": " + ae[0].Message());
      xyz = topHScope.Rot().RotateVector(xyz);
      std::string key = a == 0 ? "axis" : "axis2";
      js += ",\"" + key + "\":{\"xyz\":" + vec(xyz) + ",\"lower\":" + num(ax->Lower()) + ",\"upper\":" +
            num(ax->Upper()) + ",\"effort\":" + num(ax->Effort()) + ",\"velocity\":" + num(ax->MaxVelocity()) +
            ",\"damping\":" + num(ax->Damping()) + ",\"friction\":" + num(ax->Friction()) + "}";
    }
    out.joints.push_back(js + "}");
    for (uint64_t s = 0; s < j->SensorCount(); ++s)
      sensorJson(j->SensorByIndex(s), prefix, scoped(prefix, j->Name()), topHScope, out);
  }
  for (uint64_t i = 0; i < m->FrameCount(); ++i) {
    const auto *f = m->FrameByIndex(i);
    Pose3d p;
    auto e = f->SemanticPose().Resolve(p, "__model__");
    if (!e.empty()) out.problems.push_back("frame " + f->Name() + ": " + e[0].Message());
    std::string body;
    f->ResolveAttachedToBody(body);
    out.frames.push_back(esc(scoped(prefix, f->Name())) + ":{\"pose\":" + pose(topHScope * p) +
                         ",\"attached_to\":" + esc(scoped(prefix, body)) + "}");
  }
  for (uint64_t i = 0; i < m->ModelCount(); ++i) {
    const auto *n = m->ModelByIndex(i);
    Pose3d p;
    auto e = n->SemanticPose().Resolve(p, "__model__");
    if (!e.empty()) out.problems.push_back("model " + n->Name() + ": " + e[0].Message());
    const std::string np = scoped(prefix, n->Name());
    out.models.push_back(esc(np) + ":{\"pose\":" + pose(topHScope * p) + ",\"canonical\":" +
                         esc(scoped(np, n->CanonicalLinkName())) + "}");
    dumpModel(n, np, topHScope * p, out);
  }
}

std::string obj(const std::vector<std::string> &items) {
  std::string s = "{";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s + "}";
}

std::string arr(const std::vector<std::string> &items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s + "]";
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: sdformat_dump FILE [MODEL_NAME] [MODEL_PATH ...]\n";
    return 2;
  }
  sdf::Console::Instance()->SetQuiet(true);
  sdf::ParserConfig config = sdf::ParserConfig::GlobalConfig();
  for (int i = 3; i < argc; ++i) config.AddURIPath("model://", argv[i]);
  const std::string wanted = argc > 2 ? argv[2] : "";
  sdf::Root root;
  sdf::Errors errors = root.Load(argv[1], config);
  const sdf::Model *model = root.Model();
  if (!model && root.WorldCount() > 0) {
    const auto *w = root.WorldByIndex(0);
    for (uint64_t i = 0; i < w->ModelCount() && !model; ++i)
      if (wanted.empty() || w->ModelByIndex(i)->Name() == wanted) model = w->ModelByIndex(i);
  }
  std::cout << "{\"ok\":" << (errors.empty() ? "true" : "false") << ",\"errors\":" << errs(errors);
  if (model) {
    Out out;
    dumpModel(model, "", Pose3d::Zero, out);
    std::cout << ",\"model\":{\"name\":" << esc(model->Name())
              << ",\"canonical\":" << esc(model->CanonicalLinkName()) << ",\"links\":" << obj(out.links)
              << ",\"joints\":" << obj(out.joints) << ",\"frames\":" << obj(out.frames)
              << ",\"models\":" << obj(out.models) << ",\"sensors\":" << arr(out.sensors)
              << ",\"problems\":" << arr([&] {
                   std::vector<std::string> v;
                   for (const auto &p : out.problems) v.push_back(esc(p));
                   return v;
                 }())
              << "}";
  }
  std::cout << "}\n";
  return 0;
}
