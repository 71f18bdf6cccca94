"""File formats, with no Blender: BVH (:mod:`.bvh`: read, write, units and axes), a BVH as the clip Blender's importer
would make (:mod:`.bvh_clip`), the FBX/GLB/.blend containers' checks, the motion graph's JSON, and the settings an
import was made with."""
