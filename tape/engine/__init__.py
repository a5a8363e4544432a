"""The autodiff engine behind ``tape``. Import the public API from ``tape`` itself."""
