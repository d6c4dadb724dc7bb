"""kernlab: kernels, feature maps, ridge regression, support vector machines and RKHS tools.

The reference library of the course: the book computes with it and the
autograder checks students' work against it.
"""

from .kernels import *  # noqa: F401,F403
from .features import *  # noqa: F401,F403
from .gram import *  # noqa: F401,F403
from .ridge import *  # noqa: F401,F403
from .svm import *  # noqa: F401,F403
from .rkhs import *  # noqa: F401,F403
from .kernel_pca import *  # noqa: F401,F403
from .model_selection import *  # noqa: F401,F403

__version__ = "0.1.0"
